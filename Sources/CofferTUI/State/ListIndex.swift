import CofferCore
import Foundation

/// The list's items sorted once, each with its searchable text folded once into one byte buffer,
/// so a key typed into the filter costs one byte search per candidate row instead of a sort and a
/// Unicode-aware search of every field.
///
/// Rebuilt only when the items or the sort order change (`ScreenState` keeps it current).
struct ListIndex: Sendable, Equatable {
    private(set) var sorted: [ScreenItem] = []
    /// Every row's title, username, notes, origins, tags and the fields search covers
    /// (`ItemMatcher.forEachShownField`), folded (unreadable items: none).
    private var texts = SearchTexts()
    /// Every row's kind name (unreadable items: ""), for `kind:` words.
    private var kinds: [String] = []
    /// Each row's position in `sorted` by id, so finding the selection after a key typed into the
    /// filter is a lookup, not a walk over up to 100,000 rows.
    private var positions: [String: Int] = [:]
    /// Items merged and waiting for review (⚑), counted once here rather than on every frame.
    private(set) var needingReview = 0

    init() {}

    /// Items in the trash are left out (issue 43): the list, its filter and its count never show them.
    init(items: [ScreenItem], sort: ListState.SortOrder) {
        sorted = ItemFilter.sorted(items.filter { !$0.isTrashed }, by: sort)
        positions.reserveCapacity(sorted.count)
        for (position, row) in sorted.enumerated() where positions[row.id] == nil {
            positions[row.id] = position
            if row.needsReview { needingReview += 1 }
        }
        texts.reserveCapacity(rows: sorted.count)
        kinds = sorted.map { $0.item?.entry.kind ?? "" }
        for row in sorted {
            texts.appendRow { bytes in
                guard let item = row.item else { return }
                func add(_ field: String) {
                    FoldedText.append(field, to: &bytes)
                    bytes.append(0)
                }
                add(item.title)
                add(item.entry.username)
                add(item.entry.notes)
                item.origins.forEach(add)
                item.tags.forEach(add)
                ItemMatcher.forEachShownField(of: item.entry) { field in
                    add(field)
                    return false
                }
            }
        }
    }

    /// Where the item `id` is in `sorted`.
    func position(of id: String?) -> Int? {
        id.flatMap { positions[$0] }
    }

    /// The rows the filter `query` lets through, in sort order.
    func visible(query: String) -> [ScreenItem] {
        let query = ItemFilter.query(query)
        let found = rows(ofKinds: query.kinds, among: query.words.isEmpty ? nil : rows(matching: query.words))
        return found.map { $0.map { sorted[$0] } } ?? sorted
    }

    /// Positions in `sorted` of the rows whose kind's name starts with one of `kinds`, among
    /// `candidates` (every row when nil); `candidates` unchanged when `kinds` is empty.
    func rows(ofKinds kinds: [String], among candidates: [Int]?) -> [Int]? {
        guard !kinds.isEmpty else { return candidates }
        let keeps = { (position: Int) in kinds.contains { self.kinds[position].hasPrefix($0) } }
        return candidates.map { $0.filter(keeps) } ?? self.kinds.indices.filter(keeps)
    }

    /// Positions in `sorted` of the rows holding every word; only `candidates` are looked at when
    /// given (the rows an earlier, looser query let through).
    func rows(matching words: [[UInt8]], among candidates: [Int]? = nil) -> [Int] {
        texts.rows(matching: words, among: candidates)
    }
}
