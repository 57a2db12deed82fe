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
        if let name = field.field, let selector = FieldSelector(name: name) {
            try await Self.showField(selector, of: target.name, global: global)
            return
        }
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        let id = item.id
        let listed = try await vault.items(ItemQuery(id: id)).first { $0.id == id }
        let badges = listed.map(ItemExchange.badges(of:)) ?? []
        if output.json {
            Output.line(try ItemExchange.text(ItemExchange.detail(item, badges: badges, reveal: reveal)))
            return
        }
        let line = TerminalText.line
        var rows: [[String]] = [["id", line(item.id)], ["title", line(item.title)]]
        if item.entry.kind == Entry.loginKind {
            rows += [
                ["username", line(item.entry.username)],
                ["password", reveal ? line(item.entry.password) : "•••••••• (--reveal to show)"],
            ]
        } else {
            rows.append(["kind", ItemKind.named(item.entry.kind)?.label ?? line(item.entry.kind)])
        }
        rows += ShownFields.rows(of: item.entry, reveal: reveal)
        rows += [
            ["origins", item.origins.map(line).joined(separator: ", ")], ["tags", item.tags.map(line).joined(separator: ", ")],
            ["notes", TerminalText.lines(item.entry.notes)],
        ]
        if item.entry.kind == Entry.loginKind {
            rows.append(["totp", item.entry.totp.map { reveal ? line($0) : "••••••••" } ?? ""])
        }
        rows += [
            ["disabled", item.disabled ? "yes" : "no"], ["created", item.created.iso8601],
            ["modified", item.modified.iso8601], ["history", "\(item.history.count) change(s)"],
            ["badges", Badges.symbols(badges)],
        ]
        for line in Table.format(rows) { Output.line(line) }
    }

    /// `show NAME --field F`: the one value, raw — a script asked for it (`TerminalText` is for
    /// people). Also for the command line read by hand (`ItemCommandByHand`).
    static func showField(_ selector: FieldSelector, of name: String, global: GlobalOptions) async throws {
        let vault = try await global.itemVault()
        let item = try await vault.item(named: name)
        Output.rawLine(try await FieldOption.value(selector, of: item, in: vault))
    }
}

/// The rows `show` prints for a kind's own fields and the custom fields, secrets masked without
/// `--reveal`. A field of a kind this version does not know is shown by its name, as text.
enum ShownFields {
    static func rows(of entry: Entry, reveal: Bool) -> [[String]] {
        let line = TerminalText.line
        func shown(_ value: String, secret: Bool) -> String { secret && !reveal && !value.isEmpty ? "••••••••" : line(value) }
        var rows: [[String]] = []
        if let kind = ItemKind.named(entry.kind), kind != .login {
            for field in kind.fields { rows.append([field.label, shown(entry[field: field.name] ?? "", secret: field.isSecret)]) }
        }
        let described = Set(ItemKind.named(entry.kind)?.fields.map(\.name) ?? [])
        for (name, value) in entry.fields.sorted(by: { $0.key < $1.key }) where !described.contains(name) {
            rows.append([line(name), shown(value, secret: ItemField.isSecret(name))])
        }
        for field in entry.custom { rows.append([line(field.label), shown(field.value, secret: field.isSecret)]) }
        return rows
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Show an item's earlier entries, or put one back.",
        discussion: "Earlier entries are numbered from 1, the one before the last change. --restore N makes entry N the item's entry again, as an edit: the entry it replaces goes into the history, so a restore is undone the same way.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @Flag(help: "Show earlier passwords too.") var reveal = false
    @Option(help: ArgumentHelp("Make earlier entry N (as numbered by `history`) the item's entry again.", valueName: "N"))
    var restore: Int?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        let versions = ItemHistory.versions(of: item)
        if let restore {
            try await restoreEntry(restore, of: item, from: versions, in: vault)
            return
        }
        if output.json {
            let detail = ItemExchange.detail(item, badges: [], reveal: reveal)
            Output.line(try ItemExchange.text(detail["history"] ?? []))
            return
        }
        if versions.isEmpty { Output.line("No earlier versions.") }
        for (index, version) in versions.enumerated() {
            let changes = version.changedFields.map { field -> String in
                // Tags are the item's, not the entry's: the version carries them apart.
                if field == "tags" { return "tags: " + (version.tags.isEmpty ? "(none)" : TerminalText.line(version.tags.joined(separator: ", "))) }
                let secret = ItemField.isSecret(field)
                let previous = version.entry.jsonValue.objectValue?[field]?.stringValue ?? "(none)"
                return "\(TerminalText.line(field)): \(secret && !reveal ? "••••••••" : TerminalText.line(previous))"
            }
            Output.line("\(index + 1). \(version.created.iso8601)  before: " + changes.joined(separator: "; "))
        }
    }

    /// Saves `versions[number - 1]`'s entry over the item's, as `edit` saves: merged with a change
    /// another process saved meanwhile, and recorded in the history like any edit.
    private func restoreEntry(_ number: Int, of item: Item, from versions: [ItemHistory.Version], in vault: any ItemVault) async throws {
        guard versions.indices.contains(number - 1) else {
            throw ValidationError(versions.isEmpty ? "This item has no earlier entries to restore."
                                  : "There is no earlier entry \(number): this item has \(versions.count), numbered 1 to \(versions.count).")
        }
        var edited = item
        edited.entry = versions[number - 1].entry
        let saved = try await vault.update(edited, from: item)
        if saved.mergedWithNewer {
            Terminal.write("Merged with a change another process saved meanwhile.\n")
        }
        if output.json {
            Output.line(try ItemExchange.text(ItemExchange.detail(saved.item, badges: [.pending], reveal: false)))
        } else {
            Output.line(saved.item.id)
        }
    }
}
