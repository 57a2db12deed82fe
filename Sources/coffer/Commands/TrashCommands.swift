import ArgumentParser
import CofferAgent
import CofferCore
import Foundation

/// `coffer trash`: what `rm` put aside (issue 43), listed, or removed for good with `--empty`.
struct TrashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash", abstract: "List the items in the trash, or empty it.",
        discussion: "`rm` puts an item in the trash; it syncs, so an item removed on another device is here too. "
            + "`restore NAME` takes one back. An unlocked sync removes for good what has been in the trash over "
            + "\(TrashRules.keptDays) days; --empty removes everything in it now.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Remove every item in the trash for good (on every device, at the next sync).") var empty = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let vault = try await global.itemVault()
        let trashed = TrashListing.items(try await vault.items(.trash))
        if empty {
            // One sealed removal each, as `rm --purge`: the agent and this process remove alike.
            for item in trashed { try await vault.remove(item.id) }
            Output.line("Removed \(trashed.count) item(s) for good.")
            return
        }
        if output.json {
            Output.line(try ItemExchange.text(trashed.map(TrashListing.summary)))
            return
        }
        if trashed.isEmpty { Output.line("The trash is empty.") }
        let line = TerminalText.line
        let rows = trashed.map { item in
            [line(item.title), line(item.entry.kind), "trashed " + (item.trashed?.iso8601 ?? ""), line(item.id)]
        }
        for text in Table.format(rows) { Output.line(text) }
    }
}

/// `coffer restore NAME`: an item out of the trash, as it was.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Take an item out of the trash.",
        discussion: "NAME is looked up among the items in the trash only (`coffer trash` lists them).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The item in the trash: its id, an id prefix, its title or a unique part of it.",
                                 valueName: "name"))
    var name: String

    /// Prints the restored item's id, as `rm` prints the one it removed.
    func run() async throws {
        let vault = try await global.itemVault()
        let trashed = TrashListing.items(try await vault.items(.trash))
        let id = try ItemNameResolver.id(of: name, among: trashed.map { ItemNameResolver.Candidate(id: $0.id, title: $0.title) })
        guard let item = trashed.first(where: { $0.id == id }) else { throw CoreError.noItemNamed(name) }
        var edited = item
        edited.trashed = nil
        let saved = try await vault.update(edited, from: item)
        if saved.mergedWithNewer {
            Terminal.write("Merged with a change another process saved meanwhile.\n")
        }
        Output.line(saved.item.id)
    }
}

/// The trash as the commands show it: readable items in it, the most recently trashed first.
enum TrashListing {
    static func items(_ listed: [ListedItem]) -> [Item] {
        listed.compactMap(\.item).filter(\.isTrashed)
            .sorted { ($1.trashed ?? Timestamp(milliseconds: 0), $0.title.lowercased(), $0.id)
                < ($0.trashed ?? Timestamp(milliseconds: 0), $1.title.lowercased(), $1.id) }
    }

    /// `trash --json`: `list --json`'s shape with `trashed` (ISO-8601 UTC).
    static func summary(_ item: Item) -> [String: Any] {
        var summary = ItemExchange.summary(item, badges: [])
        summary["trashed"] = item.trashed?.iso8601
        return summary
    }
}
