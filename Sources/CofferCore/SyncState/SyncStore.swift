import Foundation
import GRDB

/// A record synced in either collection, decoded: what becomes stable when the server has it.
public enum SyncedRecord: Sendable, Equatable {
    case item(ItemRecord)
    case keystore(KeystoreRecord)

    public var id: String {
        switch self {
        case .item(let record): return record.id
        case .keystore(let record): return record.id
        }
    }

    /// The canonical JSON text (what `pending.record` holds).
    public func canonicalText() throws -> String {
        switch self {
        case .item(let record): return try RecordCoding.encode(record)
        case .keystore(let record): return try RecordCoding.encode(record)
        }
    }

    /// The canonical text without the server's timestamp: equal for the same content.
    public func content() throws -> String {
        switch self {
        case .item(var record):
            record.lastModified = 0
            return try RecordCoding.encode(record)
        case .keystore(var record):
            record.lastModified = 0
            return try RecordCoding.encode(record)
        }
    }
}

/// What fetch needs of a stable record, read without decoding it.
public struct StableStamp: Sendable, Equatable {
    /// The server's timestamp of the version stable holds.
    public var lastModified: Int64
    /// Its lineage (nil for bytes that are no envelope).
    public var lineage: Lineage?
    public var revision: UInt64? { lineage?.revision }

    public init(lastModified: Int64, lineage: Lineage?) {
        self.lastModified = lastModified
        self.lineage = lineage
    }
}

/// The vault's tables as the sync steps see them, inside one transaction: stable records,
/// pending changes and markers, read and written as values. The store owns the SQL; the sync
/// engine never sees a statement. Valid only inside `VaultDatabase.syncWrite` / `syncRead`.
public struct SyncStore {
    let db: Database

    // MARK: Markers

    /// The server's ETag of the collection's last fetch.
    public func marker(_ collection: CollectionName) throws -> String? {
        try marker(named: collection.rawValue)
    }

    /// Any collection's marker (the device collections' too).
    func marker(named collection: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT etag FROM markers WHERE collection = ?", arguments: [collection])
    }

    public func setMarker(_ collection: CollectionName, _ etag: String?) throws {
        try setMarker(named: collection.rawValue, etag)
    }

    /// Any collection's marker (the device collections' too); nil forgets it.
    func setMarker(named collection: String, _ etag: String?) throws {
        if let etag {
            try db.execute(sql: "INSERT OR REPLACE INTO markers (collection, etag) VALUES (?, ?)",
                           arguments: [collection, etag])
        } else {
            try db.execute(sql: "DELETE FROM markers WHERE collection = ?", arguments: [collection])
        }
    }

    /// Forgets every collection's marker: the next sync lists everything.
    public func clearMarkers() throws {
        try db.execute(sql: "DELETE FROM markers")
    }

    // MARK: Settings

    /// Sets (or, with nil, removes) vault settings, in this transaction.
    public func setMeta(_ values: KeyValuePairs<MetaKey, String?>) throws {
        for (key, value) in values { try VaultDatabase.setMeta(key, value, in: db) }
    }

    // MARK: Stable records

    public func stableStamp(_ collection: CollectionName, _ id: String) throws -> StableStamp? {
        switch collection {
        case .items:
            guard let row = try Row.fetchOne(try db.cachedStatement(sql: "SELECT last_modified, encrypted FROM items WHERE id = ?"),
                                             arguments: [id])
            else { return nil }
            return StableStamp(lastModified: row["last_modified"], lineage: Lineage.of(row["encrypted"] as String))
        case .keystores:
            guard id == CollectionName.keystoreID, let record = try VaultDatabase.stableKeystore(in: db) else { return nil }
            return StableStamp(lastModified: record.lastModified, lineage: Lineage.of(record.encrypted))
        }
    }

    /// Whether the collection has nothing stable and nothing pending (a first download's vault).
    public func holdsNothing(_ collection: CollectionName) throws -> Bool {
        try !Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM \(collection.rawValue)) OR EXISTS (SELECT 1 FROM pending WHERE collection = ?)
            """, arguments: [collection.rawValue])!
    }

    public func stableIDs(_ collection: CollectionName) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT id FROM \(collection.rawValue)")
    }

    /// The stable item `id`, decoded.
    public func stableItem(_ id: String) throws -> ItemRecord? {
        try VaultDatabase.stableItem(id, in: db)
    }

    /// A stable record as JSON text (to queue it again after the server lost it).
    public func stableText(_ collection: CollectionName, _ id: String) throws -> String? {
        switch collection {
        case .items: return try VaultDatabase.stableItem(id, in: db).map { try RecordCoding.encode($0) }
        case .keystores: return try VaultDatabase.stableKeystore(in: db).map { try RecordCoding.encode($0) }
        }
    }

    /// Makes `record` the stable version (a deletion removes the stable row).
    public func saveStable(_ record: SyncedRecord) throws {
        switch record {
        case .item(let record): try VaultDatabase.saveStableItem(record, in: db)
        case .keystore(let record): try VaultDatabase.saveStableKeystore(record, in: db)
        }
    }

    /// Makes a record held as JSON text the stable version, with `lastModified` as its server timestamp.
    public func saveStable(text: String, lastModified: Int64, in collection: CollectionName) throws {
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

    public func deleteStable(_ collection: CollectionName, _ id: String) throws {
        try db.cachedStatement(sql: "DELETE FROM \(collection.rawValue) WHERE id = ?").execute(arguments: [id])
    }

    // MARK: Pending changes

    public func pendingChange(_ collection: CollectionName, _ id: String, source: PendingChange.Source) throws -> PendingChange? {
        try VaultDatabase.pendingChange(collection, id, source: source, in: db)
    }

    /// The collection's pending changes of one source, in the order they were recorded.
    public func pendingChanges(_ collection: CollectionName, source: PendingChange.Source) throws -> [PendingChange] {
        try VaultDatabase.pendingChanges(collection, source: source, in: db)
    }

    /// Saves the change, replacing any earlier one for the same (source, collection, id).
    public func savePending(_ change: PendingChange) throws {
        try VaultDatabase.savePending(change, in: db)
    }

    public func deletePending(_ collection: CollectionName, _ id: String, source: PendingChange.Source) throws {
        try VaultDatabase.deletePending(collection, id, source: source, in: db)
    }
}

extension VaultDatabase {
    /// Runs one sync step's reads and writes in one IMMEDIATE transaction: what it reads stays
    /// current until it commits (another process's edit waits, it does not slip in between).
    public func syncWrite<T>(_ body: (SyncStore) throws -> T) throws -> T {
        try write { db in try body(SyncStore(db: db)) }
    }

    /// `syncWrite` for the sync's own bookkeeping only (its time, outcome, Backoff deadline and
    /// clock offset), committed without waiting for the disk (`VaultDatabase.writeBookkeeping`).
    package func syncWriteBookkeeping<T>(_ body: (SyncStore) throws -> T) throws -> T {
        try writeBookkeeping { db in try body(SyncStore(db: db)) }
    }

    /// Reads for a sync step (a snapshot; nothing written).
    public func syncRead<T>(_ body: (SyncStore) throws -> T) throws -> T {
        try read { db in try body(SyncStore(db: db)) }
    }
}
