import ArgumentParser
import CofferCore
import Foundation

/// `--field NAME` of `show` and `copy`: which single value to print or copy.
struct FieldOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("One field, raw: \(FieldSelector.names.joined(separator: ", ")) "
                                            + "(totp is the current code; copy takes the password without it).", valueName: "field"))
    var field: String?

    func validate() throws {
        if let field, FieldSelector(name: field) == nil {
            throw ValidationError("Unknown field “\(field)”; the fields are \(FieldSelector.names.joined(separator: ", ")).")
        }
    }

    /// The selected field's value of `item` at `now`; fails with one sentence when the item has none.
    static func value(_ selector: FieldSelector, of item: Item, at now: Date) throws -> String {
        guard let value = try selector.value(of: item, at: now) else {
            throw CommandFailure("“\(item.title)” has no \(selector == .origin ? "origin" : "TOTP secret").")
        }
        return value
    }
}
