import CofferCore

/// The item id of each row of the agent's index, as bytes in one buffer, with an open-addressing
/// table from an id to its rows: at 100,000 items a `[String]` and a `[String: Int]` held ~14 MB
/// of the agent's memory, this ~5 MB.
///
/// Rows are only appended, like the index's: an id appended again (its item changed) has several
/// rows, and `row(of:where:)` asks which one is live.
struct RowIDs: Sendable {
    /// Row `i`'s id, its bytes as they are (ids are ASCII: `RecordID`).
    private var bytes = SearchTexts()
    /// `row + 1` at each position an id's hash probes, 0 where none; a power of two long.
    private var slots: [Int32] = []

    var count: Int { bytes.count }

    mutating func reserveCapacity(_ rows: Int) { bytes.reserveCapacity(rows: rows) }

    /// Appends `id`'s row; returns it.
    @discardableResult
    mutating func append(_ id: String) -> Int {
        let row = bytes.count
        var id = id
        id.withUTF8 { utf8 in bytes.appendRow { $0.append(contentsOf: utf8) } }
        if (row + 1) * 2 > slots.count {
            rehash(capacity: max(1024, slots.count * 2))
        } else {
            insert(row)
        }
        return row
    }

    /// The first row of `id` (in probing order) that `isWanted` accepts.
    func row(of id: String, where isWanted: (Int) -> Bool) -> Int? {
        guard !slots.isEmpty else { return nil }
        var id = id
        return id.withUTF8 { utf8 in
            let wanted = UnsafeRawBufferPointer(utf8)
            var slot = Self.hash(wanted) & (slots.count - 1)
            while slots[slot] != 0 {
                let row = Int(slots[slot]) - 1
                if bytes.withRow(row, { $0.elementsEqual(wanted) }), isWanted(row) { return row }
                slot = (slot + 1) & (slots.count - 1)
            }
            return nil
        }
    }

    func id(at row: Int) -> String {
        bytes.withRow(row) { String(decoding: $0, as: UTF8.self) }
    }

    /// The rows `isWanted` accepts whose id, lowercased, starts with `prefix` (lowercase bytes):
    /// ids are ASCII, so byte by byte.
    func rows(startingWithLowercased prefix: [UInt8], where isWanted: (Int) -> Bool) -> [Int] {
        var rows: [Int] = []
        for row in 0..<count where isWanted(row) {
            let matches = bytes.withRow(row) { id in
                guard id.count >= prefix.count else { return false }
                for (offset, wanted) in prefix.enumerated() {
                    let byte = id[offset]
                    if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != wanted { return false }
                }
                return true
            }
            if matches { rows.append(row) }
        }
        return rows
    }

    private mutating func rehash(capacity: Int) {
        slots = [Int32](repeating: 0, count: capacity)
        for row in 0..<bytes.count { insert(row) }
    }

    private mutating func insert(_ row: Int) {
        var slot = bytes.withRow(row) { Self.hash($0) } & (slots.count - 1)
        while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
        slots[slot] = Int32(row + 1)
    }

    private static func hash(_ id: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: id)
        return hasher.finalize()
    }
}
