import Foundation

/// One search's use of the sealed `SearchIndex`: a row whose fingerprint matches its entry and
/// whose indexed text lacks a word is skipped unopened; every other row is opened as before, and
/// what was opened becomes the next index when anything changed.
struct SearchIndexPass {
    /// Where a row's entry in the next index comes from.
    private enum Source {
        case stored(Int)
        case fresh(Int)
    }

    let keys: SearchIndexKeys
    private let needles: [ByteSearch.Needle]
    private let stored: SearchIndex
    /// Rows opened that `stored` did not cover (new, changed, or no index at all).
    private var fresh = SearchIndex()
    /// The next index's entries, in the order the rows were read.
    private var order: [Source] = []
    /// Whether `order` so far is `stored`'s entries one after the other.
    private var unchanged = true

    /// The stored entry after the last one found: rows come in the order the index was written.
    private var cursor = 0
    /// Every stored entry by id, built the first time a row is not at the cursor.
    private var positions: [String: Int]?
    /// The current row's stored entry, when its fingerprint matches.
    private var current: Int?

    /// Rows skipped unopened, rows opened (for tests).
    private(set) var skipped = 0
    private(set) var opened = 0

    init(words: [[UInt8]], stored: SearchIndex?, keys: SearchIndexKeys) {
        self.keys = keys
        needles = words.map(ByteSearch.Needle.init)
        self.stored = stored ?? SearchIndex()
        order.reserveCapacity(self.stored.count)
    }

    /// Whether the row can be skipped: indexed from these very bytes, and its text lacks a word.
    mutating func skips(_ id: String, fingerprint: UInt64) -> Bool {
        current = nil
        if let position = storedPosition(of: id), stored.entries[position].fingerprint == fingerprint {
            guard stored.text(of: position, holdsEvery: needles) else {
                keep(.stored(position))
                skipped += 1
                return true
            }
            current = position
        }
        opened += 1
        return false
    }

    /// The row last given to `skips` was opened into `item`: it goes into the next index.
    mutating func opened(_ id: String, fingerprint: UInt64, item: Item) {
        if let current {
            keep(.stored(current))
        } else {
            fresh.append(id, fingerprint: fingerprint) { ItemMatcher.appendSearchText(of: item, to: &$0) }
            keep(.fresh(fresh.count - 1))
        }
    }

    /// The index to store, or nil when the stored one is still exact: the same rows, unchanged,
    /// in the same order.
    func next() -> SearchIndex? {
        guard !unchanged || order.count != stored.count else { return nil }
        var next = SearchIndex()
        next.reserveCapacity(entries: order.count, bytes: stored.bytes.count + fresh.bytes.count)
        for source in order {
            switch source {
            case .stored(let position): next.append(position, of: stored)
            case .fresh(let position): next.append(position, of: fresh)
            }
        }
        return next
    }

    private mutating func keep(_ source: Source) {
        if case .stored(let position) = source, position == order.count {} else { unchanged = false }
        order.append(source)
    }

    private mutating func storedPosition(of id: String) -> Int? {
        if cursor < stored.count, stored.entry(cursor, isFor: id) {
            cursor += 1
            return cursor - 1
        }
        if positions == nil { positions = stored.positionsByID() }
        guard let found = positions?[id] else { return nil }
        cursor = found + 1
        return found
    }
}
