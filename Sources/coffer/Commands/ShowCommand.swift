import ArgumentParser
import CofferAgent
import CofferCore
import Foundation

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one item.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @Flag(help: "Show the password and TOTP secret.") var reveal = false
    @OptionGroup var field: FieldOption
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        if let name = field.field, let selector = FieldSelector(name: name) {
            // Raw: a script asked for this one value (`TerminalText` is for people).
            Output.rawLine(try await FieldOption.value(selector, of: item, in: vault))
            return
        }
        let id = item.id
        let listed = try await vault.items(ItemQuery(id: id)).first { $0.id == id }
        let badges = listed.map(ItemExchange.badges(of:)) ?? []
        if output.json {
            Output.line(try ItemExchange.text(ItemExchange.detail(item, badges: badges, reveal: reveal)))
            return
        }
        let line = TerminalText.line
        let rows: [[String]] = [
            ["id", line(item.id)], ["title", line(item.title)], ["username", line(item.entry.username)],
            ["password", reveal ? line(item.entry.password) : "•••••••• (--reveal to show)"],
            ["origins", item.origins.map(line).joined(separator: ", ")], ["tags", item.tags.map(line).joined(separator: ", ")],
            ["notes", TerminalText.lines(item.entry.notes)], ["totp", item.entry.totp.map { reveal ? line($0) : "••••••••" } ?? ""],
            ["disabled", item.disabled ? "yes" : "no"], ["created", item.created.iso8601],
            ["modified", item.modified.iso8601], ["history", "\(item.history.count) change(s)"],
            ["badges", Badges.symbols(badges)],
        ]
        for line in Table.format(rows) { Output.line(line) }
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Show an item's earlier entries.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @Flag(help: "Show earlier passwords too.") var reveal = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        let versions = HistoryWalk.versions(of: item)
        if output.json {
            let detail = ItemExchange.detail(item, badges: [], reveal: reveal)
            Output.line(try ItemExchange.text(detail["history"] ?? []))
            return
        }
        if versions.isEmpty { Output.line("No earlier versions.") }
        for version in versions {
            let changes = version.changedFields.map { field -> String in
                let secret = ItemField.isSecret(field)
                let previous = version.entry.jsonValue.objectValue?[field]?.stringValue ?? "(none)"
                return "\(TerminalText.line(field)): \(secret && !reveal ? "••••••••" : TerminalText.line(previous))"
            }
            Output.line("\(version.created.iso8601)  before: " + changes.joined(separator: "; "))
        }
    }
}

/// Walks an item's history back: each version is the entry as it was before the change at `created`.
enum HistoryWalk {
    struct Version {
        var created: Timestamp
        var entry: Entry
        var changedFields: [String]
    }

    static func versions(of item: Item) -> [Version] {
        var current = item.entry.jsonValue
        var result: [Version] = []
        for step in item.history {
            let previous = MergePatch.apply(step.patch, to: current)
            let changed = (step.patch.objectValue?.keys.sorted()) ?? []
            if let entry = Entry(jsonValue: previous) {
                result.append(Version(created: step.created, entry: entry, changedFields: changed))
            }
            current = previous
        }
        return result
    }
}
