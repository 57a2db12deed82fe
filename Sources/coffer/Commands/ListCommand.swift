import ArgumentParser
import CofferAgent
import CofferCore
import Foundation

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List items.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Only items with this tag.") var tag: String?
    @Option(help: "Only items for this origin (host or URL).") var origin: String?
    @Option(help: ArgumentHelp("Only items of this kind (\(ItemKind.known.map(\.name).joined(separator: ", ")), or a "
                               + "newer version's).", valueName: "kind")) var kind: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let vault = try await global.itemVault()
        var listed = try await vault.items(ItemQuery(tag: tag, origin: origin))
        if let kind { listed = listed.filter { $0.item?.entry.kind == kind.lowercased() } }
        try ItemListing.show(listed, json: output.json)
    }
}

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Find items whose title, username, origins, tags or notes contain QUERY.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Text to look for (case-insensitive).") var query: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Self.search(query, json: output.json, global: global)
    }

    /// What `run` does, also for the command line read by hand (`ItemCommandByHand`).
    static func search(_ query: String, json: Bool, global: GlobalOptions) async throws {
        let vault = try await global.itemVault()
        let listed = try await vault.items(ItemQuery(text: query))
        try ItemListing.show(listed, json: json)
    }
}

/// Prints listings as a table or as the `list --json` array; reports unreadable items on stderr.
enum ItemListing {
    /// `listed` is already filtered (`ItemVault.items(_:)`); unreadable items are reported, not shown.
    static func show(_ listed: [ListedItem], json: Bool) throws {
        let ready = listed.filter { listed in
            guard case .ready = listed.state else { return false }
            return true
        }
        // By title ignoring case, then id: each key made once, and indices moved rather than items.
        let keys = ready.map { ($0.item?.title.lowercased() ?? "", $0.id) }
        let shown = keys.indices.sorted { keys[$0] < keys[$1] }.map { ready[$0] }
        if json {
            Output.line(try ItemExchange.text(shown.compactMap { listed in
                listed.item.map { ItemExchange.summary($0, badges: ItemExchange.badges(of: listed)) }
            }))
        } else {
            let rows = shown.compactMap { listed -> [String]? in
                guard let item = listed.item else { return nil }
                let line = TerminalText.line
                return [Badges.symbols(ItemExchange.badges(of: listed)), line(item.title), line(ItemKind.listedName(of: item.entry)),
                        line(item.origins.first ?? ""), item.tags.map(line).joined(separator: ","), line(item.id)]
            }
            for line in Table.format(rows) { Output.line(line) }
        }
        let waiting = listed.reduce(0) { count, listed in
            guard case .waitingForKey = listed.state else { return count }
            return count + 1
        }
        if waiting > 0 {
            Terminal.write("\(waiting) item(s) wait for their key from another device.\n")
        }
        if let corrupt = listed.first(where: { if case .corrupt = $0.state { return true } else { return false } }),
           case .corrupt(let message) = corrupt.state {
            throw CoreError.tampered(what: "item \(corrupt.id): \(message)")
        }
    }
}

/// The screen's badge symbols, also used by the command line.
enum Badges {
    static func symbols(_ badges: [ItemExchange.Badge]) -> String {
        badges.map { badge in
            switch badge {
            case .conflict: return "⚠"
            case .merged: return "⚑"
            case .pending: return "↑"
            case .disabled: return "⊘"
            case .waitingForKey: return "…"
            }
        }.joined()
    }
}

/// Left-aligned columns separated by two spaces.
enum Table {
    static func format(_ rows: [[String]]) -> [String] {
        guard let columns = rows.first?.count else { return [] }
        let widths = (0..<columns).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, text in
                column == columns - 1 ? text : text + String(repeating: " ", count: widths[column] - text.count)
            }.joined(separator: "  ").trimmingSpaces()
        }
    }
}

extension String {
    /// The text without tabs and Unicode space separators at its ends — what `trimmingCharacters(in:
    /// .whitespaces)` removes — in Swift: Foundation's goes through NSString on Linux, which took ~1 ms
    /// of a 100-row `search`.
    func trimmingSpaces() -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }
}
