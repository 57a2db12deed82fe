import Foundation
import GRDB

extension VaultDatabase {
    /// Runs `body` on each sealed chunk of the search index, in order, where SQLite holds it:
    /// a copy of each would count in `search`'s peak memory.
    static func forEachSealedSearchIndexChunk(in db: Database, _ body: (Int, Data) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT id, sealed FROM search_index ORDER BY id")
        while let row = try rows.next() {
            let number: Int = row[0]
            try row.withUnsafeData(atIndex: 1) { data in
                guard let data else { return }
                try data.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress else { return try body(number, Data()) }
                    try body(number, Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count,
                                          deallocator: .none))
                }
            }
        }
    }

    /// Stores the search index `chunks`, sealed and numbered from 0: nil leaves the stored chunk
    /// of that number as it is; chunks past the last are removed.
    static func saveSearchIndex(_ chunks: [Data?], in db: Database) throws {
        try db.execute(sql: "DELETE FROM search_index WHERE id >= ?", arguments: [chunks.count])
        for (number, sealed) in chunks.enumerated() {
            guard let sealed else { continue }
            try db.execute(sql: "INSERT OR REPLACE INTO search_index (id, sealed) VALUES (?, ?)", arguments: [number, sealed])
        }
    }
}
