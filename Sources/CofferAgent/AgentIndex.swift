import CofferCore

/// What the agent keeps of each item between requests: its id, the fingerprint of the row it was
/// read from, and its folded search text — not the item. A request opens the few items it answers
/// with from the vault (`Vault.openListedItems`), so decrypted secrets live for one request, and
/// 100,000 items cost the agent tens of megabytes instead of hundreds.
///
/// Rows are only appended: a changed item's old row is cleared where it lies and its new one
/// appended, so one write updates the index without rebuilding it; `compacted()` drops cleared rows
/// once they are many.
struct AgentIndex: Sendable {
    enum Kind: UInt8, Sendable {
        /// A row an item left (changed or removed since).
        case cleared
        case ready
        /// A readable `ssh-key` item: what the agent's SSH socket offers (disabled ones too; it checks).
        case sshKey
        /// Waiting for its key, or corrupt: every query selects it, to report it.
        case unreadable
    }

    private var ids: [String] = []
    private var fingerprints: [Int] = []
    private var kinds: [Kind] = []
    /// Each live row's position by its item's id.
    private var rows: [String: Int] = [:]
    /// Each row's folded search text (`ItemMatcher.appendSearchText`), its title first.
    private var texts = SearchTexts()
    private var clearedCount = 0

    init() {}

    var count: Int { rows.count }

    /// Whether the row of `id` holds the version with `fingerprint`, readable: it need not be opened again.
    func knows(_ id: String, fingerprint: Int) -> Bool {
        guard let row = rows[id] else { return false }
        return fingerprints[row] == fingerprint && kinds[row] != .unreadable
    }

    /// Takes in a row a scan handed over: a row it opened replaces the item's earlier one.
    mutating func take(_ scan: ItemRowScan) {
        guard let state = scan.state else { return }
        remove(scan.id)
        let kind: Kind
        switch state {
        case .ready(let item): kind = item.entry.kind == ItemKind.sshKey.name ? .sshKey : .ready
        case .waitingForKey, .corrupt: kind = .unreadable
        }
        rows[scan.id] = ids.count
        ids.append(scan.id)
        fingerprints.append(scan.fingerprint)
        kinds.append(kind)
        texts.appendRow { bytes in
            if case .ready(let item) = state { ItemMatcher.appendSearchText(of: item, to: &bytes) }
        }
    }

    /// Clears the row of `id` (removed, or about to be replaced).
    mutating func remove(_ id: String) {
        guard let row = rows.removeValue(forKey: id) else { return }
        kinds[row] = .cleared
        texts.clearRow(row)
        clearedCount += 1
    }

    /// The rows so far: a scan of the whole vault notes which of them it saw (`row(of:)`).
    var rowCount: Int { ids.count }

    func row(of id: String) -> Int? { rows[id] }

    /// Clears the live rows below `seen.count` a scan of the whole vault did not see (removed since).
    mutating func clearRows(unseen seen: [Bool]) {
        for row in seen.indices where !seen[row] && kinds[row] != .cleared { remove(ids[row]) }
    }

    /// Whether cleared rows are many enough to copy the live ones into a new index.
    var isWorthCompacting: Bool { clearedCount > 4096 && clearedCount > rows.count / 2 }

    /// The live rows in a new index, in order.
    func compacted() -> AgentIndex {
        var index = AgentIndex()
        index.ids.reserveCapacity(rows.count)
        index.texts.reserveCapacity(rows: rows.count)
        for row in ids.indices where kinds[row] != .cleared {
            index.rows[ids[row]] = index.ids.count
            index.ids.append(ids[row])
            index.fingerprints.append(fingerprints[row])
            index.kinds.append(kinds[row])
            index.texts.appendRow(copying: row, of: texts)
        }
        return index
    }

    // MARK: Queries

    /// The ids of the items whose text holds every word (each readable row when there are none),
    /// then those of the unreadable ones, which every query selects.
    func ids(matching words: [[UInt8]]) -> [String] {
        let found = words.isEmpty ? readableRows : texts.rows(matching: words).filter { kinds[$0] != .cleared }
        return found.map { ids[$0] } + unreadableIDs
    }

    /// The id of `id`'s item when it is readable, then the unreadable items' (as `ItemQuery(id:)` selects).
    func ids(forID id: String) -> [String] {
        let own = rows[id].flatMap { kinds[$0] == .unreadable ? nil : ids[$0] }
        return (own.map { [$0] } ?? []) + unreadableIDs
    }

    var sshKeyIDs: [String] { ids.indices.filter { kinds[$0] == .sshKey }.map { ids[$0] } }

    private var readableRows: [Int] { ids.indices.filter { kinds[$0] == .ready || kinds[$0] == .sshKey } }

    private var unreadableIDs: [String] { ids.indices.filter { kinds[$0] == .unreadable }.map { ids[$0] } }

    /// The ids the first of the naming rules (`ItemNameResolver.resolve`, architecture §12) that
    /// matches anything matches: an id, an id prefix, an exact title ignoring case, a part of a
    /// title. Compared as bytes in place, the title being each row's first field.
    func ids(named name: String) -> [String] {
        if rows[name] != nil { return [name] }
        let lowered = Array(name.lowercased().utf8)
        if name.lowercased().count >= ItemNameResolver.shortestIDPrefix {
            let found = ids.indices.filter { kinds[$0] != .cleared && Self.id(ids[$0], startsWithLowercased: lowered) }
            if !found.isEmpty { return found.map { ids[$0] } }
        }
        let folded = Array(ItemMatcher.fold(name).utf8)
        let readable = readableRows
        let exact = texts.rows(among: readable) { row in Self.title(of: row).elementsEqual(folded) }
        if !exact.isEmpty { return exact.map { ids[$0] } }
        guard !folded.isEmpty else { return [] }
        let needle = ByteSearch.Needle(folded)
        let partial = texts.rows(among: readable) { row in
            let title = Self.title(of: row)
            guard let base = title.baseAddress else { return false }
            return ByteSearch.contains(base, count: title.count, needle)
        }
        return partial.map { ids[$0] }
    }

    /// A row's first field: the folded title.
    private static func title(of row: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: row[..<(row.firstIndex(of: 0) ?? row.count)])
    }

    /// Whether `id`, lowercased, starts with `prefix`: ids are ASCII (`RecordID`), so byte by byte.
    private static func id(_ id: String, startsWithLowercased prefix: [UInt8]) -> Bool {
        var id = id
        return id.withUTF8 { bytes in
            guard bytes.count >= prefix.count else { return false }
            for (offset, wanted) in prefix.enumerated() {
                let byte = bytes[offset]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != wanted { return false }
            }
            return true
        }
    }
}
