import ArgumentParser
import CofferCore
import Foundation

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a program with coffer://NAME/FIELD references in its environment replaced by their values.",
        discussion: "Every environment variable whose whole value is a reference (see `coffer read`) reaches the program "
            + "as the value; --env-file adds KEY=VALUE lines (values there may be references too, and win over the "
            + "environment). All are resolved before the program starts, through the agent when one runs: a reference "
            + "to no item (exit 4), to several (exit 6) or to no such field (exit 2) starts nothing and names its "
            + "variable. The program runs in coffer's place, with the terminal; its exit status is coffer's (127: not "
            + "found). With --mask its stdout and stderr go through pipes and every resolved value is written as "
            + "<concealed by coffer>; a signal N that ends it gives 128+N. --mask cannot see what the program writes to "
            + "/dev/tty (it opens the terminal itself, as ssh and sudo do for prompts), a value split between stdout and "
            + "stderr (each pipe is masked on its own), or a value encoded (base64, hex). A dotenv file decides which "
            + "secrets the program sees: use only your own.")

    /// A dotenv file is a few lines; far beyond that it is a mistake (or a device that never ends).
    static let envFileLimit = 1 << 20

    @OptionGroup var global: GlobalOptions
    @Option(name: .customLong("env-file"), help: ArgumentHelp("Also set the KEY=VALUE lines of this dotenv file (strict: "
        + "bare, 'single' or \"double\"-quoted values, # comments, nothing expanded).", valueName: "file"))
    var envFile: String?
    @Flag(help: "Pass the program's output through coffer, with every resolved value concealed.") var mask = false
    @Argument(parsing: .postTerminator, help: ArgumentHelp("The program and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        if command.isEmpty { throw ValidationError("Give the program to run after --: coffer run -- CMD ARGS…") }
    }

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        if let envFile {
            for assignment in try Self.assignments(in: envFile) { environment[assignment.key] = assignment.value }
        }
        // Only whole values are references: a value that merely mentions coffer:// is left alone.
        var variables: [(key: String, reference: SecretReference)] = []
        for key in environment.keys.sorted() {
            do {
                if let reference = try SecretReference.parse(environment[key] ?? "") { variables.append((key, reference)) }
            } catch {
                throw UsageError("The variable \(key): \(error).")
            }
        }
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let program = ProgramRun.locate(command[0], searchPath: searchPath) else {
            Terminal.write("coffer run: \(TerminalText.line(command[0])): command not found.\n")
            throw ExitCode(127)
        }
        var secrets: [String] = []
        if !variables.isEmpty {
            var resolver = SecretResolver(vault: try await global.itemVault())
            let values = try await resolver.values(of: variables.map { ($0.reference, "The variable \($0.key)") })
            for (key, reference) in variables {
                let value = values[reference] ?? ""
                // An environment string ends at its first NUL: the program would see part of the value.
                if value.contains("\0") {
                    throw CommandFailure("The variable \(key): its value holds a NUL byte, which no environment can carry.")
                }
                environment[key] = value
                secrets.append(value)
            }
        }
        if mask {
            guard let status = ProgramRun.runMasked(program, arguments: command, environment: environment, secrets: secrets) else {
                Terminal.write("coffer run: \(TerminalText.line(command[0])) cannot be started.\n")
                throw ExitCode(126)
            }
            throw ExitCode(status)
        }
        let failure = ProgramRun.exec(program, arguments: command, environment: environment)
        Terminal.write("coffer run: \(TerminalText.line(command[0])) cannot be run (\(String(cString: strerror(failure)))).\n")
        throw ExitCode(failure == ENOENT ? 127 : 126)
    }

    /// The file's assignments, or a usage error naming the file and the line.
    private static func assignments(in path: String) throws -> [DotenvFile.Assignment] {
        let data: Data
        do {
            data = try InputFile.read(path, limit: envFileLimit, allowsStreams: true)
        } catch {
            throw UsageError("The env file \(InputFile.reason(error, path: path)).")
        }
        do {
            return try DotenvFile.parse(data)
        } catch {
            throw UsageError("The env file \(TerminalText.line(path)), \(error).")
        }
    }
}
