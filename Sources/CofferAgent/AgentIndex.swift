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

    private var ids = RowIDs()
    private var fingerprints: [Int] = []
    private var kinds: [Kind] = []
    /// Each row's folded search text (`ItemMatcher.appendSearchText`), its title first.
    private var texts = SearchTexts()
    /// The rows by folded title, for names that are a whole title.
    private var titles = TitleTable()
    private var clearedCount = 0

    init() {}

    /// The items held (live rows).
    var count: Int { kinds.count - clearedCount }

    /// Whether the row of `id` holds the version with `fingerprint`, readable: it need not be opened again.
    func knows(_ id: String, fingerprint: Int) -> Bool {
        guard let row = row(of: id) else { return false }
        return fingerprints[row] == fingerprint && kinds[row] != .unreadable
    }

    /// Takes in a row a scan handed over: a row it opened replaces the item's earlier one.
    mutating func take(_ scan: ItemRowScan) {
        guard let state = scan.state else { return }
        remove(scan.id)
        let kind: Kind
        switch state {
        // A key in the trash is not offered (issue 43).
        case .ready(let item): kind = item.entry.kind == ItemKind.sshKey.name && !item.isTrashed ? .sshKey : .ready
        case .waitingForKey, .corrupt: kind = .unreadable
        }
        ids.append(scan.id)
        fingerprints.append(scan.fingerprint)
        kinds.append(kind)
        texts.appendRow { bytes in
            if case .ready(let item) = state { ItemMatcher.appendSearchText(of: item, to: &bytes) }
        }
        fileTitle(of: texts.count - 1)
    }

    /// Files the row just appended under its title.
    private mutating func fileTitle(of row: Int) {
        let texts = texts
        titles.insert(row) { row in texts.withRow(row) { TitleTable.hash(Self.title(of: $0)) } }
    }

    /// Clears the row of `id` (removed, or about to be replaced).
    mutating func remove(_ id: String) {
        if let row = row(of: id) { clear(row) }
    }

    private mutating func clear(_ row: Int) {
        kinds[row] = .cleared
        texts.clearRow(row)
        clearedCount += 1
    }

    /// The rows so far: a scan of the whole vault notes which of them it saw (`row(of:)`).
    var rowCount: Int { kinds.count }

    /// The live row of `id`'s item.
    func row(of id: String) -> Int? { ids.row(of: id) { kinds[$0] != .cleared } }

    /// Clears the live rows below `seen.count` a scan of the whole vault did not see (removed since).
    mutating func clearRows(unseen seen: [Bool]) {
        for row in seen.indices where !seen[row] && kinds[row] != .cleared { clear(row) }
    }

    /// Whether cleared rows are many enough to copy the live ones into a new index (their bytes
    /// stay in memory until then): after 25,000 edits at 100,000 items, a copy of ~20 MB.
    var isWorthCompacting: Bool { clearedCount > max(4096, count / 4) }

    /// The live rows in a new index, in order.
    func compacted() -> AgentIndex {
        var index = AgentIndex()
        index.ids.reserveCapacity(count)
        index.texts.reserveCapacity(rows: count)
        for row in kinds.indices where kinds[row] != .cleared {
            index.ids.append(ids.id(at: row))
            index.fingerprints.append(fingerprints[row])
            index.kinds.append(kinds[row])
            index.texts.appendRow(copying: row, of: texts)
            index.fileTitle(of: index.texts.count - 1)
        }
        return index
    }

    // MARK: Queries

    /// The ids of the items whose text holds every word (each readable row when there are none),
    /// then those of the unreadable ones, which every query selects.
    func ids(matching words: [[UInt8]]) -> [String] {
        let found = words.isEmpty ? readableRows : texts.rows(matching: words).filter { kinds[$0] != .cleared }
        return found.map(ids.id(at:)) + unreadableIDs
    }

    /// The id of `id`'s item when it is readable, then the unreadable items' (as `ItemQuery(id:)` selects).
    func ids(forID id: String) -> [String] {
        let own = row(of: id).flatMap { kinds[$0] == .unreadable ? nil : id }
        return (own.map { [$0] } ?? []) + unreadableIDs
    }

    var sshKeyIDs: [String] { kinds.indices.filter { kinds[$0] == .sshKey }.map(ids.id(at:)) }

    private var readableRows: [Int] { kinds.indices.filter { kinds[$0] == .ready || kinds[$0] == .sshKey } }

    private func isReadable(_ row: Int) -> Bool { kinds[row] == .ready || kinds[row] == .sshKey }

    private var unreadableIDs: [String] { kinds.indices.filter { kinds[$0] == .unreadable }.map(ids.id(at:)) }

    /// The ids the first of the naming rules (`ItemNameResolver.resolve`, architecture §12) that
    /// matches anything matches: an id, an id prefix, an exact title ignoring case, a part of a
    /// title. Compared as bytes in place, the title being each row's first field: a whole title is
    /// looked up in `titles`; only for a part of one are the rows holding the folded name anywhere
    /// found (one pass over the text) and their titles looked at.
    func ids(named name: String) -> [String] {
        if row(of: name) != nil { return [name] }
        let lowered = Array(name.lowercased().utf8)
        // Only a name of id characters can start an id (`RecordID`: ASCII letters, digits, `_`, `-`).
        if lowered.count >= ItemNameResolver.shortestIDPrefix, lowered.allSatisfy(Self.isLowercasedIDByte) {
            let found = ids.rows(startingWithLowercased: lowered) { kinds[$0] != .cleared }
            if !found.isEmpty { return found.map(ids.id(at:)) }
        }
        let folded = Array(ItemMatcher.fold(name).utf8)
        guard !folded.isEmpty else { return [] }
        let exact = titles.rows(hash: folded.withUnsafeBytes(TitleTable.hash)) { row in
            isReadable(row) && texts.withRow(row) { Self.title(of: $0).elementsEqual(folded) }
        }
        if !exact.isEmpty { return exact.map(ids.id(at:)) }
        let needle = ByteSearch.Needle(folded)
        let holding = texts.rows(holding: needle).filter(isReadable)
        let partial = texts.rows(among: holding) { row in
            let title = Self.title(of: row)
            guard let base = title.baseAddress else { return false }
            return ByteSearch.contains(base, count: title.count, needle)
        }
        return partial.map(ids.id(at:))
    }

    private static func isLowercasedIDByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2D
    }

    /// A row's first field: the folded title.
    private static func title(of row: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: row[..<(row.firstIndex(of: 0) ?? row.count)])
    }
}
