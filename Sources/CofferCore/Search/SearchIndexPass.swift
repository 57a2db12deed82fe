import Foundation

/// One search's use of the sealed search index (its chunks, `SearchIndex`): a row whose
/// fingerprint matches its entry and whose indexed text lacks a word is skipped unopened; every
/// other row is opened as before, and what was opened becomes the next index when anything changed.
struct SearchIndexPass {
    /// An entry of the stored index: its chunk, and its place in the chunk.
    struct Position: Hashable {
        var chunk: Int
        var entry: Int
    }

    /// A chunk of the next index: the stored chunk of the same number, left as it is, or a new one.
    enum NextChunk {
        case unchanged
        case rewritten(SearchIndex)
    }

    /// Where a row's entry in the next index comes from.
    private enum Source: Equatable {
        case stored(Position)
        case fresh(Int)
    }

    let keys: SearchIndexKeys
    private let needles: [ByteSearch.Needle]
    private let stored: [SearchIndex]
    private let entriesPerChunk: Int
    /// Rows opened that `stored` did not cover (new, changed, or no index at all).
    private var fresh = SearchIndex()
    /// The next index's entries, in the order the rows were read.
    private var order: [Source] = []

    /// The stored entry after the last one found: rows come in the order the index was written.
    private var cursor: Position
    /// Every stored entry by id, built the first time a row is not at the cursor.
    private var positions: [String: Position]?
    /// The current row's stored entry, when its fingerprint matches.
    private var current: Position?

    /// Rows skipped unopened, rows opened (for tests).
    private(set) var skipped = 0
    private(set) var opened = 0

    /// `stored[n]` is the stored chunk numbered n (empty when it did not open).
    init(words: [[UInt8]], stored: [SearchIndex], keys: SearchIndexKeys,
         entriesPerChunk: Int = SearchIndex.entriesPerChunk) {
        self.keys = keys
        needles = words.map(ByteSearch.Needle.init)
        self.stored = stored
        self.entriesPerChunk = max(1, entriesPerChunk)
        cursor = Self.skippingEmptyChunks(Position(chunk: 0, entry: 0), in: stored)
        order.reserveCapacity(stored.reduce(0) { $0 + $1.count })
    }

    /// Whether the row can be skipped: indexed from these very bytes, and its text lacks a word.
    mutating func skips(_ id: String, fingerprint: UInt64) -> Bool {
        current = nil
        if let position = storedPosition(of: id),
           stored[position.chunk].entries[position.entry].fingerprint == fingerprint {
            guard stored[position.chunk].text(of: position.entry, holdsEvery: needles) else {
                order.append(.stored(position))
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
            order.append(.stored(current))
        } else {
            var text: [UInt8] = []
            ItemMatcher.appendSearchText(of: item, to: &text)
            text.withUnsafeBytes { fresh.append(id, fingerprint: fingerprint, text: $0) }
            order.append(.fresh(fresh.count - 1))
        }
    }

    /// The chunks of the index to store, or nil when the stored one is still exact: the same
    /// rows, unchanged, in the same order. A chunk whose rows are exactly those of the stored
    /// chunk of its number is left as it is: one edit, or items added at the end, rewrite one
    /// chunk of ~1 MB, not the whole index.
    func next() -> [NextChunk]? {
        let chunks = stride(from: 0, to: order.count, by: entriesPerChunk).enumerated().map { number, start in
            let sources = order[start..<min(start + entriesPerChunk, order.count)]
            if number < stored.count, stored[number].count == sources.count,
               sources.indices.allSatisfy({ sources[$0] == .stored(Position(chunk: number, entry: $0 - start)) }) {
                return NextChunk.unchanged
            }
            var chunk = SearchIndex()
            for source in sources {
                switch source {
                case .stored(let position): chunk.append(position.entry, of: stored[position.chunk])
                case .fresh(let position): chunk.append(position, of: fresh)
                }
            }
            return NextChunk.rewritten(chunk)
        }
        let exact = chunks.count == stored.count && chunks.allSatisfy { if case .unchanged = $0 { true } else { false } }
        return exact ? nil : chunks
    }

    private mutating func storedPosition(of id: String) -> Position? {
        if cursor.chunk < stored.count, stored[cursor.chunk].entry(cursor.entry, isFor: id) {
            defer { cursor = after(cursor) }
            return cursor
        }
        if positions == nil {
            var all: [String: Position] = [:]
            all.reserveCapacity(order.capacity)
            for (number, chunk) in stored.enumerated() {
                chunk.forEachID { id, entry in all[id] = Position(chunk: number, entry: entry) }
            }
            positions = all
        }
        guard let found = positions?[id] else { return nil }
        cursor = after(found)
        return found
    }

    private func after(_ position: Position) -> Position {
        Self.skippingEmptyChunks(Position(chunk: position.chunk, entry: position.entry + 1), in: stored)
    }

    private static func skippingEmptyChunks(_ position: Position, in chunks: [SearchIndex]) -> Position {
        var position = position
        while position.chunk < chunks.count, position.entry >= chunks[position.chunk].count {
            position = Position(chunk: position.chunk + 1, entry: 0)
        }
        return position
    }
}
