import CofferCore
import Foundation

/// The list's items sorted once, each with its searchable text folded once into one byte buffer,
/// so a key typed into the filter costs one byte search per candidate row instead of a sort and a
/// Unicode-aware search of every field.
///
/// Rebuilt only when the items or the sort order change (`ScreenState` keeps it current).
public struct ListIndex: Sendable, Equatable {
    public private(set) var sorted: [ScreenItem] = []
    /// Every row's title, username, notes, origins and tags, folded, NUL-separated (a word never
    /// matches across two fields), row after row; `haystackEnds[i]` is where row `i`'s ends.
    /// Unreadable items have an empty haystack and never match.
    private var haystacks: [UInt8] = []
    private var haystackEnds: [Int] = []
    /// Each row's position in `sorted` by id, so finding the selection after a key typed into the
    /// filter is a lookup, not a walk over up to 100,000 rows.
    private var positions: [String: Int] = [:]
    /// Items merged and waiting for review (⚑), counted once here rather than on every frame.
    public private(set) var needingReview = 0

    public init() {}

    public init(items: [ScreenItem], sort: ListState.SortOrder) {
        sorted = ItemFilter.sorted(items, by: sort)
        positions.reserveCapacity(sorted.count)
        for (position, row) in sorted.enumerated() where positions[row.id] == nil {
            positions[row.id] = position
            if row.needsReview { needingReview += 1 }
        }
        haystackEnds.reserveCapacity(sorted.count)
        func add(_ field: String) {
            FoldedText.append(field, to: &haystacks)
            haystacks.append(0)
        }
        for row in sorted {
            if let item = row.item {
                add(item.title)
                add(item.entry.username)
                add(item.entry.notes)
                item.origins.forEach(add)
                item.tags.forEach(add)
            }
            haystackEnds.append(haystacks.count)
        }
        haystacks.append(contentsOf: repeatElement(0, count: ByteSearch.overread))
    }

    /// Where the item `id` is in `sorted`.
    func position(of id: String?) -> Int? {
        id.flatMap { positions[$0] }
    }

    /// The rows the filter `query` lets through, in sort order.
    public func visible(query: String) -> [ScreenItem] {
        rows(matching: ItemFilter.words(query)).map { sorted[$0] }
    }

    /// Positions in `sorted` of the rows holding every word; only `candidates` are looked at when
    /// given (the rows an earlier, looser query let through).
    func rows(matching words: [[UInt8]], among candidates: [Int]? = nil) -> [Int] {
        guard !words.isEmpty else { return candidates ?? Array(sorted.indices) }
        var matches: [Int] = []
        haystacks.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            func holdsEveryWord(_ row: Int) -> Bool {
                let start = row == 0 ? 0 : haystackEnds[row - 1]
                let length = haystackEnds[row] - start
                guard length > 0 else { return false }
                return words.allSatisfy { word in
                    word.withUnsafeBytes { ByteSearch.contains(base + start, count: length, $0) }
                }
            }
            if let candidates {
                for row in candidates where holdsEveryWord(row) { matches.append(row) }
            } else {
                for row in sorted.indices where holdsEveryWord(row) { matches.append(row) }
            }
        }
        return matches
    }
}
