import ArgumentParser
import CofferCore
import Foundation

struct ReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Print the value of a coffer://NAME/FIELD reference.",
        discussion: "NAME names an item as on the rest of the command line (id, id prefix, title or a unique part of "
            + "it); FIELD is any name `show --field` takes (password, username, totp, a kind's field, a custom field's "
            + "label). Write a / or % in NAME as %2F or %25. Through the agent when one runs, else after the passphrase.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The reference, coffer://NAME/FIELD.", valueName: "reference")) var reference: String
    @Flag(name: .customLong("no-newline"), help: "Print the value without a newline after it.") var noNewline = false

    func run() async throws {
        let parsed: SecretReference?
        do {
            parsed = try SecretReference.parse(reference)
        } catch {
            throw UsageError("\(error).")
        }
        guard let parsed else { throw UsageError("\(SecretReference.Problem.malformed(reference)).") }
        var resolver = SecretResolver(vault: try await global.itemVault())
        let value = try await resolver.value(of: parsed, for: TerminalText.line(reference))
        // Raw: a script asked for this one value.
        Output.raw(Data((noNewline ? value : value + "\n").utf8))
    }
}
