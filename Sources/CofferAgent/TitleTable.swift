/// The rows of the agent's index by folded title: `row + 1` at each position a title's hash
/// probes (open addressing, 0 where none), so a name that is an item's whole title — what `show
/// NAME` is usually given — is found without a pass over every row's text (~3 ms at 100,000 items).
///
/// Rows are only added, as the index's are. A row cleared since holds NULs, so its title is empty
/// and equals no name; lookups compare titles, so stale entries cost a probe and nothing else. At
/// 100,000 rows the table is 1 MiB.
struct TitleTable: Sendable {
    private var slots: [Int32] = []
    private var count = 0

    /// Adds `row` (the next row: rows are added in order, each once). `titleHash` gives a row's
    /// title's `hash`: this one's, and every earlier one's when the table grows.
    mutating func insert(_ row: Int, titleHash: (Int) -> Int) {
        count += 1
        if count * 2 > slots.count {
            // Every earlier row is placed again; `row` itself after them.
            slots = [Int32](repeating: 0, count: max(1024, slots.count * 2))
            for earlier in 0..<row { place(earlier, hash: titleHash(earlier)) }
        }
        place(row, hash: titleHash(row))
    }

    /// The rows filed under `hash` (a title's) that `isTitle` accepts, ascending.
    func rows(hash: Int, where isTitle: (Int) -> Bool) -> [Int] {
        guard !slots.isEmpty else { return [] }
        var slot = hash & (slots.count - 1)
        var rows: [Int] = []
        while slots[slot] != 0 {
            let row = Int(slots[slot]) - 1
            if isTitle(row) { rows.append(row) }
            slot = (slot + 1) & (slots.count - 1)
        }
        return rows.sorted()
    }

    /// A title's hash, for `insert` and `rows`.
    static func hash(_ title: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: title)
        return hasher.finalize()
    }

    private mutating func place(_ row: Int, hash: Int) {
        var slot = hash & (slots.count - 1)
        while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
        slots[slot] = Int32(row + 1)
    }
}
