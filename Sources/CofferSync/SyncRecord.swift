import CofferCore
import Foundation
import GRDB

/// What the steps need to know of a record, whichever collection it is in.
package struct SyncRecordHeader: Sendable, Equatable {
    package var id: String
    package var lastModified: Int64
    var isDeleted: Bool
    /// The revision of its lineage: 0 for a record sealed before lineages, nil for a deletion or
    /// bytes that are no envelope (corrupt, not older).
    var revision: UInt64?
}

/// A record as the server sent it, decoded once: its header and the record itself. Its JSON text
/// is written only when needed (a first download stores most records without it).
package struct IncomingRecord {
    enum Value {
        case item(ItemRecord)
        case keystore(KeystoreRecord)
    }

    package var header: SyncRecordHeader
    var value: Value

    /// Makes it the stable version (a deletion removes the stable row).
    func saveAsStable(in db: Database) throws {
        switch value {
        case .item(let record): try VaultDatabase.saveStableItem(record, in: db)
        case .keystore(let record): try VaultDatabase.saveStableKeystore(record, in: db)
        }
    }

    /// The canonical JSON text (what `pending.record` holds).
    package func canonicalText() throws -> String {
        switch value {
        case .item(let record): return try RecordCoding.encode(record)
        case .keystore(let record): return try RecordCoding.encode(record)
        }
    }

    /// The canonical text without the server's timestamp: equal for the same content.
    func content() throws -> String {
        switch value {
        case .item(var record):
            record.lastModified = 0
            return try RecordCoding.encode(record)
        case .keystore(var record):
            record.lastModified = 0
            return try RecordCoding.encode(record)
        }
    }
}

/// Stable-record access for either collection, so the steps are written once.
package enum StableRecords {
    package static func incoming(_ data: Data, in collection: CollectionName) throws -> IncomingRecord {
        switch collection {
        case .items:
            let record = try RecordJSON.decode(ItemRecord.self, data, collection: collection)
            guard RecordID.isValid(record.id) else {
                throw RefusedRecord(description: "The server sent an item with an invalid id; it was not stored.")
            }
            return IncomingRecord(header: header(record.id, record.lastModified, record.isDeleted, record.encrypted),
                                  value: .item(record))
        case .keystores:
            let record = try RecordJSON.decode(KeystoreRecord.self, data, collection: collection)
            guard record.id == CollectionName.keystoreID else {
                throw RefusedRecord(description: "The server sent an unexpected keystore record; it was not stored.")
            }
            if !record.isDeleted {
                do {
                    try record.kdf.checkStrength()
                } catch {
                    throw RefusedRecord(description: "The server's keystore asks for weaker or malformed key derivation; it was refused.")
                }
            }
            return IncomingRecord(header: header(record.id, record.lastModified, record.isDeleted, record.encrypted),
                                  value: .keystore(record))
        }
    }

    /// What fetch needs of a stable record, read without decoding it: its server timestamp and
    /// the revision of its lineage.
    static func stamp(_ collection: CollectionName, _ id: String, in db: Database) throws -> (lastModified: Int64, revision: UInt64?)? {
        switch collection {
        case .items:
            guard let row = try Row.fetchOne(try db.cachedStatement(sql: "SELECT last_modified, encrypted FROM items WHERE id = ?"),
                                             arguments: [id])
            else { return nil }
            return (row["last_modified"], revision(of: row["encrypted"]))
        case .keystores:
            guard id == CollectionName.keystoreID, let record = try VaultDatabase.stableKeystore(in: db) else { return nil }
            return (record.lastModified, revision(of: record.encrypted))
        }
    }

    static func stableIDs(_ collection: CollectionName, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT id FROM \(collection.rawValue)")
    }

    /// Writes a record (JSON text) to stable, with `lastModified` as its server timestamp;
    /// a deletion removes the stable row.
    static func save(_ text: String, lastModified: Int64, in collection: CollectionName, db: Database) throws {
        switch collection {
        case .items:
            var record = try RecordCoding.decode(ItemRecord.self, from: text)
            record.lastModified = lastModified
            try VaultDatabase.saveStableItem(record, in: db)
        case .keystores:
            var record = try RecordCoding.decode(KeystoreRecord.self, from: text)
            record.lastModified = lastModified
            try VaultDatabase.saveStableKeystore(record, in: db)
        }
    }

    static func delete(_ collection: CollectionName, _ id: String, db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \(collection.rawValue) WHERE id = ?").execute(arguments: [id])
    }

    /// Stable record as JSON text (for re-uploading after the server lost it).
    static func stableText(_ collection: CollectionName, _ id: String, in db: Database) throws -> String? {
        switch collection {
        case .items: return try VaultDatabase.stableItem(id, in: db).map { try RecordCoding.encode($0) }
        case .keystores: return try VaultDatabase.stableKeystore(in: db).map { try RecordCoding.encode($0) }
        }
    }

    static func revision(of encrypted: String) -> UInt64? { Lineage.of(encrypted)?.revision }

    private static func header(_ id: String, _ lastModified: Int64, _ isDeleted: Bool, _ encrypted: String) -> SyncRecordHeader {
        SyncRecordHeader(id: id, lastModified: lastModified, isDeleted: isDeleted,
                         revision: isDeleted ? nil : revision(of: encrypted))
    }
}

/// The markers table: the server's ETag of the last fetch, per collection.
enum Markers {
    static func get(_ collection: CollectionName, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT etag FROM markers WHERE collection = ?", arguments: [collection.rawValue])
    }

    static func set(_ collection: CollectionName, _ etag: String?, in db: Database) throws {
        if let etag {
            try db.execute(sql: "INSERT OR REPLACE INTO markers (collection, etag) VALUES (?, ?)",
                           arguments: [collection.rawValue, etag])
        } else {
            try db.execute(sql: "DELETE FROM markers WHERE collection = ?", arguments: [collection.rawValue])
        }
    }
}
