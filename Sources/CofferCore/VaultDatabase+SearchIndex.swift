import Foundation
import GRDB

extension VaultDatabase {
    /// The sealed search index as last stored, if any.
    static func sealedSearchIndex(in db: Database) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT sealed FROM search_index WHERE id = 1")
    }

    static func saveSearchIndex(_ sealed: Data, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO search_index (id, sealed) VALUES (1, ?)", arguments: [sealed])
    }
}
