import ArgumentParser
import CofferCore
import Foundation

struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an item; prints its id.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var fields: ItemOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        guard fields.title != nil else { throw ValidationError("Missing expected argument '--title <title>'.") }
        var fields = fields
        try fields.readStandardInput()
        try fields.readTOTPImage()
        try fields.checkTOTP()
        let vault = try await global.itemVault()
        var item = Item(title: "", created: .now())
        try fields.apply(to: &item)
        item = try await vault.add(item)
        if output.json {
            Output.line(try ItemExchange.text(ItemExchange.detail(item, badges: [.pending], reveal: false)))
        } else {
            Output.line(item.id)
        }
    }
}

struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change an item's fields.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @OptionGroup var fields: ItemOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        var fields = fields
        try fields.readStandardInput()
        try fields.readTOTPImage()
        try fields.checkTOTP()
        let vault = try await global.itemVault()
        let base = try await target.item(in: vault)
        var item = base
        try fields.apply(to: &item)
        let saved = try await vault.update(item, from: base)
        if saved.mergedWithNewer {
            // Another process saved this item between our read and our write: say what happened.
            let both = saved.conflicts.isEmpty ? ""
                : "; both changed \(saved.conflicts.joined(separator: ", ")): yours kept, the other value in history (⚑)"
            Terminal.write("Merged with a change another process saved meanwhile\(both).\n")
        }
        if output.json {
            Output.line(try ItemExchange.text(ItemExchange.detail(saved.item, badges: [.pending], reveal: false)))
        } else {
            Output.line(saved.item.id)
        }
    }
}

struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Move an item to the trash (--purge: remove it for good).",
        discussion: "The trash syncs like any edit; `coffer trash` lists it, `coffer restore NAME` takes an item back, "
            + "and an unlocked sync removes for good what has been there over \(TrashRules.keptDays) days.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @Flag(help: "Remove the item for good at once, without the trash.") var purge = false

    /// Prints the item's id on stdout, as `edit` prints the one it changed: a script that took the
    /// item by name learns which one went, and silence read as "nothing happened".
    func run() async throws {
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        if purge {
            try await vault.remove(item.id)
        } else {
            // An ordinary edit (issue 43): merged like one with a change saved meanwhile.
            var edited = item
            edited.trashed = Timestamp(try await vault.now())
            _ = try await vault.update(edited, from: item)
        }
        Output.line(item.id)
    }
}
