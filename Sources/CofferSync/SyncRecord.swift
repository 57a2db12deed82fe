import CofferCore
import Foundation
import GRDB

/// What the steps need to know of a record, whichever collection it is in.
struct SyncRecordHeader: Sendable, Equatable {
    var id: String
    var lastModified: Int64
    var isDeleted: Bool
    /// The record's JSON with `last_modified` removed: equal for the same content.
    var content: Data
    /// The revision of its lineage: 0 for a record sealed before lineages, nil for a deletion or
    /// bytes that are no envelope (corrupt, not older).
    var revision: UInt64?
}

/// Stable-record access for either collection, so the steps are written once.
enum StableRecords {
    static func header(of data: Data, in collection: CollectionName) throws -> SyncRecordHeader {
        switch collection {
        case .items:
            let record = try RecordJSON.decode(ItemRecord.self, data, collection: collection)
            guard RecordID.isValid(record.id) else {
                throw RefusedRecord(description: "The server sent an item with an invalid id; it was not stored.")
            }
            return SyncRecordHeader(id: record.id, lastModified: record.lastModified, isDeleted: record.isDeleted,
                                    content: try contentOf(record), revision: revision(of: record.encrypted))
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
            return SyncRecordHeader(id: record.id, lastModified: record.lastModified, isDeleted: record.isDeleted,
                                    content: try contentOf(record), revision: revision(of: record.encrypted))
        }
    }

    /// The canonical JSON text of a server record (what `pending.record` holds).
    static func canonicalText(of data: Data, in collection: CollectionName) throws -> String {
        switch collection {
        case .items: return try RecordCoding.encode(try RecordJSON.decode(ItemRecord.self, data, collection: collection))
        case .keystores: return try RecordCoding.encode(try RecordJSON.decode(KeystoreRecord.self, data, collection: collection))
        }
    }

    static func header(ofStored text: String, in collection: CollectionName) throws -> SyncRecordHeader {
        try header(of: Data(text.utf8), in: collection)
    }

    static func stable(_ collection: CollectionName, _ id: String, in db: Database) throws -> SyncRecordHeader? {
        switch collection {
        case .items:
            return try VaultDatabase.stableItem(id, in: db).map {
                SyncRecordHeader(id: $0.id, lastModified: $0.lastModified, isDeleted: false, content: try contentOf($0),
                                 revision: revision(of: $0.encrypted))
            }
        case .keystores:
            guard id == CollectionName.keystoreID else { return nil }
            return try VaultDatabase.stableKeystore(in: db).map {
                SyncRecordHeader(id: $0.id, lastModified: $0.lastModified, isDeleted: false, content: try contentOf($0),
                                 revision: revision(of: $0.encrypted))
            }
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
        try db.execute(sql: "DELETE FROM \(collection.rawValue) WHERE id = ?", arguments: [id])
    }

    /// Stable record as JSON text (for re-uploading after the server lost it).
    static func stableText(_ collection: CollectionName, _ id: String, in db: Database) throws -> String? {
        switch collection {
        case .items: return try VaultDatabase.stableItem(id, in: db).map { try RecordCoding.encode($0) }
        case .keystores: return try VaultDatabase.stableKeystore(in: db).map { try RecordCoding.encode($0) }
        }
    }

    static func revision(of encrypted: String) -> UInt64? { Lineage.of(encrypted)?.revision }

    private static func contentOf<Record: Encodable>(_ record: Record) throws -> Data {
        RecordJSON.body(try RecordCoding.encode(record))
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
