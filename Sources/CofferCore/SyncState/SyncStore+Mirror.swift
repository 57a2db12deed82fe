import GRDB

/// The mirror (architecture §4): the stable item a record from the server replaced before an
/// unlocked sync could authenticate it. A locked device cannot tell a real edit from garbage, a
/// swapped ciphertext or bytes that are no envelope (issue 41, finding 3); what it could read is
/// kept here until `Vault.checkMirroredItems` has opened the newcomer, or put back if it does not open.
extension SyncStore {
    /// Keeps `text`, stable's version of `id`, unless a version is kept already: the one kept is
    /// the last this device could read, and a later replacement is no more trustworthy.
    public func mirror(_ collection: CollectionName, _ id: String, text: String) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO mirror (collection, id, record) VALUES (?, ?, ?)",
                       arguments: [collection.rawValue, id, text])
    }
}

extension VaultDatabase {
    /// Every mirrored item: its id and the record kept.
    package static func mirroredItems(in db: Database) throws -> [(id: String, record: String)] {
        try Row.fetchAll(db, sql: "SELECT id, record FROM mirror WHERE collection = 'items'").map { ($0[0], $0[1]) }
    }

    /// The keystore kept in a shared vault (`Vault.checkMirroredKeystore`), if any.
    package static func mirroredKeystore(in db: Database) throws -> KeystoreRecord? {
        try String.fetchOne(db, sql: "SELECT record FROM mirror WHERE collection = 'keystores' AND id = ?",
                            arguments: [CollectionName.keystoreID]).map { try decodeStored(KeystoreRecord.self, $0) }
    }

    package static func dropMirror(_ collection: CollectionName, _ id: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM mirror WHERE collection = ? AND id = ?", arguments: [collection.rawValue, id])
    }
}
