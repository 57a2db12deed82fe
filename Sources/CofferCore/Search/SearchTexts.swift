/// Rows of folded searchable text in one padded byte buffer, searched a row at a time with
/// `ByteSearch`: the screen's `/` filter and the agent's `search` over up to 100,000 items, where
/// an array per row cost a retain and a release per row per search.
public struct SearchTexts: Sendable, Equatable {
    /// Every row's bytes, row after row, then `ByteSearch.overread` bytes of padding.
    private var bytes = [UInt8](repeating: 0, count: ByteSearch.overread)
    /// `ends[i]` is where row `i`'s bytes end.
    private var ends: [Int] = []

    public init() {}

    public var count: Int { ends.count }

    public mutating func reserveCapacity(rows: Int) { ends.reserveCapacity(rows) }

    /// Adds a row: `fill` appends its fields, each folded and followed by a NUL (which no query
    /// word holds, so no word matches across two fields). An unreadable item's row stays empty
    /// and never matches.
    public mutating func appendRow(_ fill: (inout [UInt8]) -> Void) {
        bytes.removeLast(ByteSearch.overread)
        fill(&bytes)
        ends.append(bytes.count)
        bytes.append(contentsOf: repeatElement(0, count: ByteSearch.overread))
    }

    /// Empties row `row` where it lies (its bytes become NULs, which no query word holds, so it
    /// never matches again): a long-lived index drops a changed item's row without moving the others.
    public mutating func clearRow(_ row: Int) {
        let range = (row == 0 ? 0 : ends[row - 1])..<ends[row]
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            (base + range.lowerBound).update(repeating: 0, count: range.count)
        }
    }

    /// `body`'s answer on row `row`'s bytes (valid only inside it).
    public func withRow<Result>(_ row: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let start = row == 0 ? 0 : ends[row - 1]
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<ends[row]])) }
    }

    /// Adds a copy of `other`'s row `row` (an index compacting itself into a new one).
    public mutating func appendRow(copying row: Int, of other: SearchTexts) {
        let start = row == 0 ? 0 : other.ends[row - 1]
        appendRow { $0.append(contentsOf: other.bytes[start..<other.ends[row]]) }
    }

    /// The rows among `candidates` (ascending) whose bytes `predicate` accepts; a row's bytes
    /// are valid only inside `predicate` (`ByteSearch.overread` bytes may be read past them).
    public func rows(among candidates: [Int], where predicate: (UnsafeRawBufferPointer) -> Bool) -> [Int] {
        var matches: [Int] = []
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            for row in candidates {
                let start = row == 0 ? 0 : ends[row - 1]
                if predicate(UnsafeRawBufferPointer(start: base + start, count: ends[row] - start)) { matches.append(row) }
            }
        }
        return matches
    }

    /// The rows holding `needle`, ascending, found in one pass over the whole buffer: a row ends
    /// with a NUL, which no word holds, so no match spans two rows. Much faster than row by row
    /// when few rows match (a search at 100,000 items).
    public func rows(holding needle: ByteSearch.Needle) -> [Int] {
        var matches: [Int] = []
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            let total = ends.last ?? 0
            var start = 0
            while start < total, let offset = ByteSearch.firstOffset(of: needle, in: base + start, count: total - start) {
                // The row holding that byte: the first whose end lies beyond it.
                let position = start + offset
                var (low, high) = (0, ends.count - 1)
                while low < high {
                    let middle = (low + high) / 2
                    if ends[middle] > position { high = middle } else { low = middle + 1 }
                }
                matches.append(low)
                start = ends[low]
            }
        }
        return matches
    }

    /// The rows holding every word, ascending; only `candidates` (ascending) are looked at when given.
    public func rows(matching words: [[UInt8]], among candidates: [Int]? = nil) -> [Int] {
        guard !words.isEmpty else { return candidates ?? Array(ends.indices) }
        // Every row is a candidate: the longest word, likely the rarest, picks them in one pass.
        if candidates == nil, let longest = words.indices.max(by: { words[$0].count < words[$1].count }), !words[longest].isEmpty {
            var others = words
            others.remove(at: longest)
            return rows(matching: others, among: rows(holding: ByteSearch.Needle(words[longest])))
        }
        let needles = words.map(ByteSearch.Needle.init)
        var matches: [Int] = []
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            func holdsEveryWord(_ row: Int) -> Bool {
                let start = row == 0 ? 0 : ends[row - 1]
                let length = ends[row] - start
                guard length > 0 else { return false }
                return needles.allSatisfy { ByteSearch.contains(base + start, count: length, $0) }
            }
            if let candidates {
                for row in candidates where holdsEveryWord(row) { matches.append(row) }
            } else {
                for row in ends.indices where holdsEveryWord(row) { matches.append(row) }
            }
        }
        return matches
    }
}
