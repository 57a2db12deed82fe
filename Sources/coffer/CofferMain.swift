import ArgumentParser
import CofferCore
import CofferSync
import CofferSystem
import Foundation
import Logging

/// Entry point: parse, run, and map every error to one sentence on stderr and an exit code.
@main
enum CofferMain {
    static func main() async {
        // `coffer --version` (how scripts probe an install) answers before ArgumentParser builds
        // its command tree, which was most of the start-up left once the runtime is linked statically.
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            Output.line(CofferVersion.string)
            exit(0)
        }
        umask(0o077)
        ProcessHardening.removeCrashReporter()
        ProcessHardening.apply()
        bootstrapLogging()
        // `config.toml` is read before any command: one it cannot read stops them all alike.
        Configuration.check()
        // The screen (no command) is the start users wait on, `coffer sync` the command timers
        // run, `search` and `show NAME --field F` the lookups scripts run through an agent: their
        // options are read by hand (ArgumentParser took ~6 ms of a ~20 ms start, most of it the
        // runtime's first protocol conformance lookups). Anything else goes on to the full parse,
        // which explains errors.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let start = ScreenStart(arguments: arguments) {
            await finish { try await start.run() }
        }
        if let sync = SyncCommand.handReading(arguments) {
            await finish { try await sync.run() }
        }
        if let lookup = ItemCommandByHand(arguments: arguments) {
            await finish { try await lookup.run() }
        }
        let command: ParsableCommand
        do {
            command = try Coffer.parseAsRoot()
        } catch {
            // --help, --version and completion scripts are "errors" that exit 0.
            let code = Coffer.exitCode(for: error)
            if code == .success {
                Output.line(Coffer.fullMessage(for: error))
                exit(0)
            }
            Terminal.write(Coffer.usageLine(for: error) + "\n")
            exit(ExitStatus.usage)
        }
        await finish {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        }
    }

    /// Runs a parsed command and exits with its code: every error as one sentence on stderr.
    private static func finish(_ run: sending () async throws -> Void) async -> Never {
        let code = await status(of: run)
        // Never exit in the middle of loading libcurl on another thread (KintoTransport.finishLoading).
        KintoClient.finishLoadingTransport()
        exit(code)
    }

    private static func status(of run: sending () async throws -> Void) async -> Int32 {
        do {
            try await run()
            return ExitStatus.ok
        } catch let exit as ExitCode {
            return exit.rawValue
        } catch let error as ValidationError {
            Terminal.write("\(error.message)\n")
            return ExitStatus.usage
        } catch {
            // `coffer help` and `--help` parse to ArgumentParser's help command, whose run() throws
            // "help requested": print the help and succeed, as for `--help` caught while parsing.
            if Coffer.exitCode(for: error) == .success {
                Output.line(Coffer.fullMessage(for: error))
                return 0
            }
            Terminal.write("\(error)\n")
            return ExitStatus.code(for: error)
        }
    }
}

extension Coffer {
    /// A parse error as one line (architecture §6: one sentence on stderr): ArgumentParser's message
    /// without its usage block, then its pointer to the command's help.
    static func usageLine(for error: Error) -> String {
        let message = message(for: error).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        let hint = fullMessage(for: error).split(whereSeparator: \.isNewline).last
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let sentence = message.last.map { ".!?".contains($0) } == true ? message : message + "."
        guard let hint, hint.hasPrefix("See "), !message.contains(hint) else { return sentence }
        return sentence + " " + hint
    }
}

/// Logs go to stderr, warnings and worse unless `COFFER_LOG` names another level (e.g. `info`).
private func bootstrapLogging() {
    // getenv: ProcessInfo's environment copies every variable into a dictionary per call.
    let level = getenv("COFFER_LOG").map { String(cString: $0) }.flatMap(Logger.Level.init(rawValue:)) ?? .warning
    LoggingSystem.bootstrap { label in
        var handler = TerminalSafeLogHandler(label: label)
        handler.logLevel = level
        return handler
    }
}

struct Coffer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "An encrypted password vault for the terminal, synced through a Kinto server.",
        discussion: overview + "\n\n" + exitCodes,
        version: CofferVersion.string,
        subcommands: [
            InitCommand.self, AddCommand.self, EditCommand.self, RemoveCommand.self, TrashCommand.self, RestoreCommand.self, ShowCommand.self,
            ListCommand.self, SearchCommand.self, HistoryCommand.self, GenerateCommand.self, PasswdCommand.self,
            StatusCommand.self, HealthCommand.self, ExportCommand.self, ImportCommand.self, AccountCommand.self, JoinCommand.self,
            SyncCommand.self, DeviceCommand.self, ShareCommand.self, RecoveryKitCommand.self, RecoverCommand.self, SendCommand.self, ReceiveCommand.self, TotpCommand.self,
            CopyCommand.self, AttachCommand.self, AttachmentsCommand.self, AttachmentCommand.self, DetachCommand.self,
            UnlockCommand.self, LockCommand.self, SSHCommand.self, ClipboardClearCommand.self, AgentCommand.self, ManualCommand.self,
            ReadCommand.self, RunCommand.self, InjectCommand.self, GitCredentialCommand.self,
        ]
    )

    /// What `--help` says first; the man page's DESCRIPTION is this too (its exit codes have a section).
    static let overview = "With no command, opens the vault's screen. `coffer manual` prints the man page (roff: `coffer manual | man -l -`)."

    /// The exit codes in `--help`, from the one table (`ExitStatus.meanings`): they were only in
    /// the man page, which `--help` did not name.
    /// Each meaning is wrapped here, under its first word: ArgumentParser's own wrapping starts
    /// a continuation at the left edge, under the codes.
    static var exitCodes: String {
        var lines = ["EXIT CODES:"]
        for (code, meaning) in ExitStatus.meanings {
            var line = "  " + String(code).padding(toLength: 4, withPad: " ", startingAt: 0)
            var hasWord = false
            for word in meaning.split(separator: " ") {
                if hasWord, line.count + 1 + word.count > 78 {
                    lines.append(line)
                    line = String(repeating: " ", count: 6)
                    hasWord = false
                }
                line += (hasWord ? " " : "") + word
                hasWord = true
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    @OptionGroup var screen: ScreenArguments

    func run() async throws {
        try await screen.runScreen()
    }
}

/// The root command's own options: those of the screen, which `coffer` with no command opens.
/// `ScreenStart.init?(arguments:)` reads the same options by hand for the usual start.
struct ScreenArguments: ParsableArguments {
    @OptionGroup var global: GlobalOptions

    // Optional, so a value given here is told from none: the configuration file's comes between.
    @Option(help: "Lock the screen after this many idle seconds (0: never; default: config.toml's auto-lock, else 300).")
    var autoLock: Double?

    @Option(help: ArgumentHelp("Clear a copied value after this many seconds (the screen, and `coffer copy` where 0 means never; "
        + "default: config.toml's clipboard-seconds, else 10)."))
    var clipboardSeconds: Double?

    func validate() throws {
        if let clipboardSeconds, !ScreenStart.isValidClipboardDelay(clipboardSeconds) {
            throw ValidationError("--clipboard-seconds must be a number of seconds, 0 or more.")
        }
    }

    /// The seconds in force: the flag, else the file's, else the default.
    var resolvedSeconds: (autoLock: Double, clipboard: Double) {
        Configuration.current.seconds(autoLockFlag: autoLock, clipboardFlag: clipboardSeconds)
    }

    func runScreen() async throws {
        let seconds = resolvedSeconds
        try await ScreenStart(vaultPath: global.vaultPath, autoLockSeconds: seconds.autoLock,
                              clipboardSeconds: seconds.clipboard).run()
    }
}

enum CofferVersion {
    static let string = "0.1.0"
}
