import CofferCore
import Foundation

/// The list's items sorted once, each with its searchable text folded once, so a key typed into
/// the filter costs one substring scan per item instead of a sort and a Unicode-aware search of
/// every field (at 10,000 items that was seconds per key).
///
/// Rebuilt only when the items or the sort order change (`ScreenState` keeps it current).
public struct ListIndex: Sendable, Equatable {
    public private(set) var sorted: [ScreenItem] = []
    /// `sorted[i]`'s title, username, notes, origins and tags, case- and accent-folded, NUL-separated
    /// (so a word never matches across two fields); nil for items that cannot be read.
    private var haystacks: [String?] = []

    public init() {}

    public init(items: [ScreenItem], sort: ListState.SortOrder) {
        sorted = ItemFilter.sorted(items, by: sort)
        haystacks = sorted.map { row in
            row.item.map { item in
                ([item.title, item.entry.username, item.entry.notes] + item.origins + item.tags)
                    .map(ItemFilter.fold).joined(separator: "\u{0}")
            }
        }
    }

    /// The rows the filter `query` lets through, in sort order.
    public func visible(query: String) -> [ScreenItem] {
        let words = ItemFilter.words(query)
        guard !words.isEmpty else { return sorted }
        var rows: [ScreenItem] = []
        for (row, haystack) in zip(sorted, haystacks) {
            guard let haystack else { continue }
            if words.allSatisfy(haystack.contains) { rows.append(row) }
        }
        return rows
    }
}
