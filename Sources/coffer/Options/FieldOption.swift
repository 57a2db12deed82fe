import ArgumentParser
import CofferCore
import Foundation

/// `--field NAME` of `show` and `copy`: which single value to print or copy.
struct FieldOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("One field, raw: \(FieldSelector.names.joined(separator: ", ")), or any "
                                            + "field of the item's kind or custom field by its label (totp, and a TOTP "
                                            + "field, give the current code; copy takes the password without it).",
                                            valueName: "field"))
    var field: String?

    func validate() throws {
        if let field, FieldSelector(name: field) == nil {
            throw ValidationError("Unknown field “\(field)”; the fields are \(FieldSelector.names.joined(separator: ", ")).")
        }
    }

    /// The selected field's value of `item` (a TOTP code for this device's clock, with the clock's
    /// warning on stderr: `ItemVault.totpTime`); fails with one sentence when the item has none.
    static func value(_ selector: FieldSelector, of item: Item, in vault: any ItemVault) async throws -> String {
        var now = Date()
        if selector == .field(.totp) {
            // Only the item's TOTP warns about the clock: the vault's time is one more request to an agent.
            let (device, warning) = try await vault.totpTime()
            if let warning { Terminal.write("Warning: \(warning).\n") }
            now = device
        }
        guard let value = try selector.value(of: item, at: now) else {
            switch selector {
            case .origin:
                throw CommandFailure("“\(TerminalText.line(item.title))” has no origin.")
            case .other(let name):
                // A name no field of this item has: a usage mistake, answered with the names it has.
                throw UsageError("“\(TerminalText.line(item.title))” has no field “\(TerminalText.line(name))”; its fields are "
                    + (FieldSelector.names + fieldNames(of: item.entry)).joined(separator: ", ") + ".")
            default:
                throw CommandFailure("“\(TerminalText.line(item.title))” has no TOTP secret.")
            }
        }
        return value
    }

    /// The names `--field` takes for the item beyond the built-in ones: its kind's fields and
    /// its custom fields' labels.
    private static func fieldNames(of entry: Entry) -> [String] {
        let kind = ItemKind.named(entry.kind)
        let own = (kind?.fields ?? []).filter { !ItemKind.login.fields.contains($0) }.map(\.name)
        let others = entry.fields.keys.filter { name in !own.contains(name) }.sorted()
        return (own + others + entry.custom.map(\.label)).map(TerminalText.line)
    }
}
