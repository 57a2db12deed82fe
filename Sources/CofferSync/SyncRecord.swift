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
    /// A record as the server sent it: its header and its canonical JSON text (what
    /// `pending.record` holds), from one decode and one encode.
    static func incoming(_ data: Data, in collection: CollectionName) throws -> (header: SyncRecordHeader, text: String) {
        switch collection {
        case .items:
            let record = try RecordJSON.decode(ItemRecord.self, data, collection: collection)
            guard RecordID.isValid(record.id) else {
                throw RefusedRecord(description: "The server sent an item with an invalid id; it was not stored.")
            }
            return try described(record, id: record.id, lastModified: record.lastModified, isDeleted: record.isDeleted,
                                 encrypted: record.encrypted)
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
            return try described(record, id: record.id, lastModified: record.lastModified, isDeleted: record.isDeleted,
                                 encrypted: record.encrypted)
        }
    }

    static func header(of data: Data, in collection: CollectionName) throws -> SyncRecordHeader {
        try incoming(data, in: collection).header
    }

    /// The canonical JSON text of a server record (what `pending.record` holds).
    static func canonicalText(of data: Data, in collection: CollectionName) throws -> String {
        try incoming(data, in: collection).text
    }

    static func header(ofStored text: String, in collection: CollectionName) throws -> SyncRecordHeader {
        try header(of: Data(text.utf8), in: collection)
    }

    /// What fetch needs of a stable record, read without decoding it: its server timestamp and
    /// the revision of its lineage.
    static func stamp(_ collection: CollectionName, _ id: String, in db: Database) throws -> (lastModified: Int64, revision: UInt64?)? {
        switch collection {
        case .items:
            guard let row = try Row.fetchOne(db, sql: "SELECT last_modified, encrypted FROM items WHERE id = ?", arguments: [id])
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

    private static func described<Record: Encodable>(_ record: Record, id: String, lastModified: Int64, isDeleted: Bool,
                                                     encrypted: String) throws -> (header: SyncRecordHeader, text: String) {
        let text = try RecordCoding.encode(record)
        let header = SyncRecordHeader(id: id, lastModified: lastModified, isDeleted: isDeleted,
                                      content: content(ofCanonical: text, lastModified: lastModified),
                                      revision: isDeleted ? nil : revision(of: encrypted))
        return (header, text)
    }

    /// The canonical text with its timestamp taken out, so equal content compares equal. The
    /// text is our own encoder's (sorted keys, no spaces), where `"last_modified":N` occurs once.
    static func content(ofCanonical text: String, lastModified: Int64) -> Data {
        let stamp = "\"last_modified\":\(lastModified)"
        guard let range = text.range(of: stamp) else { return Data(text.utf8) }
        return Data(text.replacingCharacters(in: range, with: "\"last_modified\":0").utf8)
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
