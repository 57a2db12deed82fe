/// The items the last full listing opened, by id, each with the fingerprint of the row it came
/// from (`CurrentItemRow.fingerprint`): the next listing (the screen's reload after another
/// process's commit) opens only the rows whose bytes changed.
///
/// Updated in place: a reload of 100,000 items that finds one change reads the other entries and
/// replaces one, instead of building a second dictionary and freeing the first.
struct OpenedItems {
    private struct Entry {
        var fingerprint: Int
        var item: Item
    }

    private var entries: [String: Entry] = [:]
    /// Entries found or added since `begin`.
    private var seen = 0

    var count: Int { entries.count }

    mutating func begin() { seen = 0 }

    /// The item opened before from a row with this fingerprint; nil when the row is new or changed.
    mutating func item(_ id: String, fingerprint: Int) -> Item? {
        guard let entry = entries[id], entry.fingerprint == fingerprint else { return nil }
        seen += 1
        return entry.item
    }

    mutating func remember(_ id: String, fingerprint: Int, item: Item) {
        entries[id] = Entry(fingerprint: fingerprint, item: item)
        seen += 1
    }

    /// Ends a listing that found or added `seen` entries: when some were not (items removed
    /// since, or unreadable now), keeps only those of `listed`.
    mutating func end(listed: [ListedItem]) {
        guard entries.count > seen else { return }
        let ids = Set(listed.lazy.filter { if case .ready = $0.state { true } else { false } }.map(\.id))
        entries = entries.filter { ids.contains($0.key) }
    }
}
