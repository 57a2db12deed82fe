import ArgumentParser
import CofferCore
import Foundation

struct InjectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inject",
        abstract: "Write a template with each {{ coffer://NAME/FIELD }} replaced by its value.",
        discussion: "References are those of `coffer read`; any other {{ … }} is left as it is, and values are put in "
            + "once (a value that reads like a reference is not expanded). All are resolved before anything is "
            + "written. --out is written whole or not at all, readable by you alone (0600), and never over an "
            + "existing file without --force; without --out the text goes to stdout. A template decides which "
            + "secrets the file holds: use only your own.")

    /// A configuration file's template: far below this.
    static let templateLimit = 1 << 20

    @OptionGroup var global: GlobalOptions
    @Option(name: .customLong("in"), help: ArgumentHelp("The template.", valueName: "template")) var template: String
    @Option(name: .customLong("out"), help: ArgumentHelp("The file to write (default: stdout).", valueName: "file"))
    var output: String?
    @Flag(help: "Replace --out if it exists.") var force = false

    func run() async throws {
        let data: Data
        do {
            data = try InputFile.read(template, limit: Self.templateLimit, allowsStreams: true)
        } catch {
            throw UsageError("The template \(InputFile.reason(error, path: template)).")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw UsageError("The template \(TerminalText.line(template)) is not UTF-8 text.")
        }
        let parsed: SecretTemplate
        do {
            parsed = try SecretTemplate(parsing: text)
        } catch {
            throw UsageError("The template \(TerminalText.line(template)), \(error).")
        }
        // Said before the passphrase is asked; `PrivateFile` refuses it again when it writes.
        if let output, !force, PrivateFile.exists(output) { throw PrivateFile.Failure.exists(output) }
        var values: [SecretReference: String] = [:]
        if !parsed.references.isEmpty {
            var resolver = SecretResolver(vault: try await global.itemVault())
            values = try await resolver.values(of: parsed.references.map { ($0, "The template's \(TerminalText.line($0.description))") })
        }
        var rendered = Data(parsed.rendered(with: values).utf8)
        defer { wipe(&rendered) }
        guard let output else {
            Output.raw(rendered)
            return
        }
        try PrivateFile.write(rendered, to: output, replacing: force)
    }
}
