import Foundation
import GRDB

/// Row-level access to stable records and pending changes, for use inside one transaction.
/// Statements are cached per connection: a sync or an import runs them thousands of times, and
/// preparing (parsing, GRDB's authorizer) cost more than running them.
extension VaultDatabase {
    // MARK: Stable items

    package static func stableItem(_ id: String, in db: Database) throws -> ItemRecord? {
        try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM items WHERE id = ?"), arguments: [id]).map(itemRecord(from:))
    }

    package static func stableItems(in db: Database) throws -> [ItemRecord] {
        try Row.fetchAll(db, sql: "SELECT * FROM items").map(itemRecord(from:))
    }

    package static func saveStableItem(_ record: ItemRecord, in db: Database) throws {
        if record.isDeleted {
            try db.cachedStatement(sql: "DELETE FROM items WHERE id = ?").execute(arguments: [record.id])
            return
        }
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO items (id, last_modified, active, origins, tags, encrypted, signature) VALUES (?, ?, ?, ?, ?, ?, ?)"
        ).execute(arguments: [record.id, record.lastModified, record.isActive ? 1 : 0,
                              record.originHashes.joined(separator: " "), record.tagHashes.joined(separator: " "),
                              record.encrypted, record.signature])
    }

    static func itemRecord(from row: Row) -> ItemRecord {
        func hashes(_ column: String) -> [String] {
            let text: String = row[column]
            return text.isEmpty ? [] : text.split(separator: " ").map(String.init)
        }
        return ItemRecord(id: row["id"], isActive: (row["active"] as Int) != 0, originHashes: hashes("origins"),
                          tagHashes: hashes("tags"), encrypted: row["encrypted"], lastModified: row["last_modified"],
                          signature: row["signature"])
    }

    // MARK: Stable keystore

    package static func stableKeystore(in db: Database) throws -> KeystoreRecord? {
        guard let text = try String.fetchOne(try db.cachedStatement(sql: "SELECT record FROM keystores WHERE id = ?"),
                                             arguments: [CollectionName.keystoreID]) else { return nil }
        return try decodeStored(KeystoreRecord.self, text)
    }

    package static func saveStableKeystore(_ record: KeystoreRecord, in db: Database) throws {
        if record.isDeleted {
            try db.cachedStatement(sql: "DELETE FROM keystores WHERE id = ?").execute(arguments: [record.id])
            return
        }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO keystores (id, last_modified, record) VALUES (?, ?, ?)")
            .execute(arguments: [record.id, record.lastModified, try RecordCoding.encode(record)])
    }

    // MARK: Pending

    package static func pendingChange(_ collection: CollectionName, _ id: String, source: PendingChange.Source,
                                     in db: Database) throws -> PendingChange? {
        try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM pending WHERE collection = ? AND id = ? AND source = ?"),
                         arguments: [collection.rawValue, id, source.rawValue]).flatMap(pendingChange(from:))
    }

    /// Pending changes of a collection in the order they were recorded, optionally of one source.
    package static func pendingChanges(_ collection: CollectionName, source: PendingChange.Source? = nil,
                                      in db: Database) throws -> [PendingChange] {
        var sql = "SELECT * FROM pending WHERE collection = ?"
        var arguments: StatementArguments = [collection.rawValue]
        if let source {
            sql += " AND source = ?"
            arguments += [source.rawValue]
        }
        return try Row.fetchAll(db, sql: sql + " ORDER BY key", arguments: arguments).compactMap(pendingChange(from:))
    }

    /// Inserts the change, replacing any earlier one for the same (source, collection, id).
    package static func savePending(_ change: PendingChange, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO pending (collection, id, source, action, last_modified, record) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (source, collection, id) DO UPDATE SET
                action = excluded.action, last_modified = excluded.last_modified, record = excluded.record
            """).execute(arguments: [change.collection.rawValue, change.id, change.source.rawValue,
                                     change.action.rawValue, change.lastModified, change.record])
    }

    package static func deletePending(_ collection: CollectionName, _ id: String, source: PendingChange.Source,
                                     in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM pending WHERE collection = ? AND id = ? AND source = ?")
            .execute(arguments: [collection.rawValue, id, source.rawValue])
    }

    static func pendingChange(from row: Row) -> PendingChange? {
        guard let collection = CollectionName(rawValue: row["collection"]),
              let source = PendingChange.Source(rawValue: row["source"]),
              let action = PendingChange.Action(rawValue: row["action"]) else { return nil }
        return PendingChange(key: row["key"], collection: collection, id: row["id"], source: source, action: action,
                             lastModified: row["last_modified"], record: row["record"])
    }

    // MARK: Local changes

    /// Records a local edit of an item as a pending change: `add` if the server never had it,
    /// `update` otherwise; removing an item the server never saw just drops its pending add.
    package static func recordLocalChange(_ record: ItemRecord, in db: Database) throws {
        let stable = try stableItem(record.id, in: db)
        if record.isDeleted {
            // An item no server answer has confirmed keeps its removal too (based on nothing): a
            // sync in another process may have pushed its creation already, and its answer, or
            // a fetch of it, must find the removal to send it after (`ApplyRules`, `FetchRules`).
            var removal = PendingChange.itemRemoval(id: record.id, basedOn: stable?.lastModified ?? 0)
            if record.isSealedRemoval {
                var sealed = record
                sealed.lastModified = removal.lastModified
                removal.record = try RecordCoding.encode(sealed)
            }
            try savePending(removal, in: db)
            return
        }
        var stored = record
        stored.lastModified = stable?.lastModified ?? 0
        try savePending(PendingChange(collection: .items, id: record.id, source: .local,
                                      action: stable == nil ? .add : .update, lastModified: stored.lastModified,
                                      record: try RecordCoding.encode(stored)), in: db)
    }

    package static func recordLocalChange(_ record: KeystoreRecord, in db: Database) throws {
        let stable = try stableKeystore(in: db)
        var stored = record
        stored.lastModified = stable?.lastModified ?? 0
        try savePending(PendingChange(collection: .keystores, id: record.id, source: .local,
                                      action: stable == nil ? .add : .update, lastModified: stored.lastModified,
                                      record: try RecordCoding.encode(stored)), in: db)
    }

    // MARK: Current view (local pending over stable)

    /// The keystore as this device sees it: its own pending change, else the stable one.
    package static func currentKeystore(in db: Database) throws -> KeystoreRecord? {
        if let local = try pendingChange(.keystores, CollectionName.keystoreID, source: .local, in: db) {
            return try decodeStored(KeystoreRecord.self, local.record)
        }
        return try stableKeystore(in: db)
    }

    /// The current keystore's passphrase half (KDF parameters and verifier) without its key ring,
    /// which SQLite leaves out: enough to derive the passphrase's keys before reading the rest.
    package static func currentKeystoreWrapping(in db: Database) throws -> KeystoreWrapping? {
        let id = CollectionName.keystoreID
        let text = try String.fetchOne(db, sql: """
            SELECT json_remove(record, '$.encrypted') FROM pending
            WHERE collection = 'keystores' AND id = ? AND source = 'local'
            """, arguments: [id])
            ?? String.fetchOne(db, sql: "SELECT json_remove(record, '$.encrypted') FROM keystores WHERE id = ?", arguments: [id])
        return try text.map { try RecordCoding.decode(KeystoreWrapping.self, from: $0) }
    }

    /// Every item record as this device sees it, with whether it carries an unsynced local change.
    package static func currentItems(in db: Database) throws -> [CurrentItemRecord] {
        var result: [CurrentItemRecord] = []
        try forEachCurrentItem(in: db) { result.append($0) }
        return result
    }

    /// The same records one at a time, read from cursors: a search over 100,000 items need not
    /// hold them all (nor all their pending JSON) at once.
    package static func forEachCurrentItem(in db: Database, _ body: (CurrentItemRecord) throws -> Void) throws {
        try forEachCurrentItemRow(in: db) { try body($0.current()) }
    }

    /// The same rows before their records are decoded: a listing that already opened a row's
    /// version (same fingerprint) skips its JSON. A row is valid only inside `body`.
    package static func forEachCurrentItemRow(in db: Database, _ body: (CurrentItemRow) throws -> Void) throws {
        // SQLite skips the stable rows a local change replaces and marks conflicts, each by one
        // probe of pending's (source, collection, id) index: no set of 100,000 ids in Swift.
        let stable = try Row.fetchCursor(db, sql: """
            SELECT * FROM items AS i WHERE NOT EXISTS
              (SELECT 1 FROM pending AS p WHERE p.source = 'local' AND p.collection = 'items' AND p.id = i.id)
            """)
        while let row = try stable.next() {
            try body(CurrentItemRow(id: row["id"], row: row, isLocal: false, hasConflict: false))
        }
        let local = try Row.fetchCursor(db, sql: """
            SELECT l.id, l.record, EXISTS (SELECT 1 FROM pending AS r WHERE r.source = 'remote' AND r.collection = 'items'
                                             AND r.id = l.id) AS conflict
            FROM pending AS l WHERE l.source = 'local' AND l.collection = 'items' AND l.action != 'remove'
            """)
        while let row = try local.next() {
            try body(CurrentItemRow(id: row[0], row: row, isLocal: true, hasConflict: row[2]))
        }
    }

    /// One item's row as `forEachCurrentItemRow` hands it (the same fingerprint); nil when the item
    /// is gone or removed here. The row is valid only inside `body`.
    package static func currentItemRow<Result>(_ id: String, in db: Database,
                                               _ body: (CurrentItemRow?) throws -> Result) throws -> Result {
        if let local = try Row.fetchOne(db, sql: """
            SELECT l.id, l.record, EXISTS (SELECT 1 FROM pending AS r WHERE r.source = 'remote' AND r.collection = 'items'
                                             AND r.id = l.id) AS conflict, l.action
            FROM pending AS l WHERE l.source = 'local' AND l.collection = 'items' AND l.id = ?
            """, arguments: [id]) {
            guard local[3] as String != PendingChange.Action.remove.rawValue else { return try body(nil) }
            return try body(CurrentItemRow(id: id, row: local, isLocal: true, hasConflict: local[2]))
        }
        let stable = try Row.fetchOne(db, sql: "SELECT * FROM items WHERE id = ?", arguments: [id])
        return try body(stable.map { CurrentItemRow(id: id, row: $0, isLocal: false, hasConflict: false) })
    }

    package static func currentItem(_ id: String, in db: Database) throws -> CurrentItemRecord? {
        if let local = try pendingChange(.items, id, source: .local, in: db) {
            guard local.action != .remove else { return nil }
            let conflict = try pendingChange(.items, id, source: .remote, in: db) != nil
            return CurrentItemRecord(record: try decodeStored(ItemRecord.self, local.record), hasLocalChange: true,
                                     hasConflict: conflict)
        }
        return try stableItem(id, in: db).map { CurrentItemRecord(record: $0, hasLocalChange: false, hasConflict: false) }
    }

    static func decodeStored<Record: Decodable>(_ type: Record.Type, _ text: String) throws -> Record {
        do {
            return try RecordCoding.decode(type, from: text)
        } catch {
            throw CoreError.tampered(what: "a stored record is not valid JSON")
        }
    }
}

/// A row of `items` (stable) or `pending` (a local change) during a listing, undecoded.
package struct CurrentItemRow {
    package let id: String
    fileprivate let row: Row
    fileprivate let isLocal: Bool
    fileprivate let hasConflict: Bool

    /// The record, decoded (a local change's JSON, a stable row's columns).
    package func current() throws -> CurrentItemRecord {
        let record = isLocal ? try VaultDatabase.decodeStored(ItemRecord.self, row[1] as String)
                             : VaultDatabase.itemRecord(from: row)
        return CurrentItemRecord(record: record, hasLocalChange: isLocal, hasConflict: hasConflict)
    }

    package var hasLocalChange: Bool { isLocal }
    package var isInConflict: Bool { hasConflict }

    /// A keyed hash (Swift's per-process random seed) of the bytes the item is sealed in — the
    /// stable row's envelope, or the local change's whole record — read in place: another version,
    /// or a row changed on disk, has another fingerprint and is opened (and authenticated) again.
    package func fingerprint() throws -> Int {
        var hasher = Hasher()
        hasher.combine(isLocal)
        try withSealedBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// Runs `body` on the bytes the item is sealed in, where SQLite holds them (no copy).
    func withSealedBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try row.withUnsafeData(named: isLocal ? "record" : "encrypted") { data in
            guard let data else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
            return try data.withUnsafeBytes(body)
        }
    }
}

/// An item record as the device sees it now, with what the list's badges need.
public struct CurrentItemRecord: Sendable, Equatable {
    public var record: ItemRecord
    /// ↑ — a local change not yet on the server.
    public var hasLocalChange: Bool
    /// ⚠ — changed here and on another device; merged on unlock.
    public var hasConflict: Bool
}
