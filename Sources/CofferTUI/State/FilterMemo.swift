/// The rows the last few filters let through (positions in `ListIndex.sorted`), so a key typed at
/// the end searches only the rows the shorter query kept, and deleting back returns to rows
/// already found instead of searching every item again.
///
/// Derived data that only saves work: every memo compares equal, so two states showing the same
/// list are equal whatever each remembers. Reset whenever the index changes.
struct FilterMemo: Sendable, Equatable {
    private struct Entry: Sendable {
        var words: [[UInt8]]
        var rows: [Int]
    }

    /// A handful: enough to delete a typed word back, without holding many large arrays.
    private static let capacity = 8
    private var entries: [Entry] = []

    /// The rows found earlier for exactly these words.
    func rows(for words: [[UInt8]]) -> [Int]? {
        entries.last { $0.words == words }?.rows
    }

    /// The fewest rows remembered for a looser query, which are the only rows `words` can match.
    func candidates(for words: [[UInt8]]) -> [Int]? {
        entries.filter { ItemFilter.narrows(words, $0.words) }.min { $0.rows.count < $1.rows.count }?.rows
    }

    mutating func remember(_ words: [[UInt8]], rows: [Int]) {
        entries.removeAll { $0.words == words }
        entries.append(Entry(words: words, rows: rows))
        if entries.count > FilterMemo.capacity { entries.removeFirst() }
    }

    static func == (lhs: FilterMemo, rhs: FilterMemo) -> Bool { true }
}
