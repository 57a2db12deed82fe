import Foundation
import GRDB

/// New keys for a personal vault after a device's removal (architecture §9, "New keys at a
/// device's removal"; issue 42). The removed device kept the vault key, every item key and the
/// passphrase it was unlocked with: with the server's help it could write versions every device
/// took. So the device that removes it makes, in one transaction, a new vault key wrapped under a
/// new passphrase, a fresh key for every item (the old ones retired: they still open what exists),
/// and commits to every item version the vault has (`KeyRing+Succession.swift`). From then on a
/// version only a retired key opens is taken only if committed; the removed device has neither
/// the new keys nor the passphrase that unwraps them. Nothing is sealed again.
extension Vault {
    /// Gives the vault new keys under `passphrase` (asked by `device rm --rotate`, `passwd --new-keys`).
    public func rotateKeys(to passphrase: SecureBuffer, kdf requested: KDFParameters) throws {
        // A shared vault's keys change with its roster (`share revoke`, `share rotate`); the
        // command line never asks this of one.
        precondition(sharedVaultID == nil, "new keys at a device's removal are a personal vault's")
        let session = try unlockedSession()
        let (keys, kdf) = try newPassphraseKeys(passphrase, kdf: requested, session: session)
        let vaultKey = SecureBuffer.random(count: KeyRing.keyLength)
        let revisionTime = writeTimes.revision
        let ring = try database.write { db -> KeyRing in
            try takeWaitingKeystore(session, revisionTime: revisionTime, in: db)
            // Keys another process added since this session unlocked (see saveKeystore).
            let current = try VaultDatabase.currentKeystore(in: db).flatMap { $0.isDeleted ? nil : $0 }
            if let current { _ = try absorbForWriting(current, into: session) }
            let ring = session.ring.rekeyed(generation: session.ring.generation + 1, keepingHashingKey: true)
            ring.rememberVaultKey(session.vaultKey)
            ring.committed = try Self.versionsHeld(in: db)
            let lineage = Lineage.following(try VaultDatabase.stableKeystore(in: db)?.encrypted, now: revisionTime)
            var record = try KeystoreSealing.seal(ring, vaultKey: vaultKey, keys: keys, kdf: kdf, lineage: lineage, lastModified: 0)
            // Newer than the wrapping it replaces on every device, whatever the clocks say.
            if let current, KeystoreWrappingTag.isAuthentic(current, vaultKey: session.vaultKey),
               record.wrappingRevision <= current.wrappingRevision, current.wrappingRevision < Int64.max {
                record = KeystoreSuccession.vouched(
                    KeystoreWrappingTag.tagged(record, revision: current.wrappingRevision + 1, vaultKey: vaultKey), ring: ring)
            }
            try VaultDatabase.recordLocalChange(record, in: db)
            try VaultDatabase.setMeta(.resealedGeneration, String(ring.generation), in: db)
            return ring
        }
        self.session = UnlockedSession(keys: keys, ring: ring, vaultKey: vaultKey, kdf: kdf)
    }

    /// Every item version this copy holds — stable, its own changes, and the server's waiting to
    /// be merged (the removed device wrote those while it was one of the vault's).
    static func versionsHeld(in db: Database) throws -> Set<KeyRing.CommittedVersion> {
        var held = Set<KeyRing.CommittedVersion>()
        let rows = try Row.fetchCursor(db, sql: "SELECT id, encrypted FROM items WHERE encrypted != ''")
        while let row = try rows.next() {
            held.insert(KeyRing.CommittedVersion(itemID: row["id"], encrypted: Data((row["encrypted"] as String).utf8)))
        }
        for change in try VaultDatabase.pendingChanges(.items, in: db) {
            guard let record = try? RecordCoding.decode(ItemRecord.self, from: change.record), !record.encrypted.isEmpty else { continue }
            held.insert(KeyRing.CommittedVersion(itemID: record.id, encrypted: Data(record.encrypted.utf8)))
        }
        return held
    }

    /// Seals again, under the current keys, this device's own changes that only a retired key
    /// opens and the vault did not commit to: made here before this copy took the new keys (an
    /// edit offline while another device removed one), they would be refused everywhere else.
    /// Same item, same lineage. Once per generation (`meta.resealed_generation`). Returns how many.
    public func resealUncommittedChanges() throws -> Int {
        guard sharedVaultID == nil, let session, session.ring.committed != nil else { return 0 }
        let generation = String(session.ring.generation)
        guard try database.meta(.resealedGeneration) != generation else { return 0 }
        let ring = session.ring
        return try database.write { db in
            var resealed = 0
            for change in try VaultDatabase.pendingChanges(.items, source: .local, in: db) {
                guard let record = try? RecordCoding.decode(ItemRecord.self, from: change.record), !record.encrypted.isEmpty,
                      ring.contains(record.id), ring.hasRetiredKeys(for: record.id),
                      (try? ItemSealing.openFetched(record, ring: ring)) == nil else { continue }
                guard let lineage = Lineage.of(record.encrypted) else { continue }
                var again: ItemRecord
                if record.isSealedRemoval {
                    guard try RemovalSealing.isAuthentic(record, ring: ring, judgingRetired: false),
                          let sealed = try RemovalSealing.seal(record.id, ring: ring, lineage: lineage, signer: nil) else { continue }
                    again = sealed
                } else {
                    guard let item = try? ItemSealing.open(record, ring: ring) else { continue }
                    again = try ItemSealing.seal(item, ring: ring, lineage: lineage, lastModified: record.lastModified)
                }
                again.lastModified = record.lastModified
                var updated = change
                updated.record = try RecordCoding.encode(again)
                try VaultDatabase.savePending(updated, in: db)
                resealed += 1
            }
            try VaultDatabase.setMeta(.resealedGeneration, generation, in: db)
            return resealed
        }
    }
}

extension Vault {
    /// `newer` (the ring of new keys made at a device's removal) with this copy's own ring
    /// (`current`, sealed under an earlier vault key that `newer` keeps) taken in: keys of items only
    /// this copy knew are not lost. `tampered` when no earlier vault key of `newer` opens `current`.
    static func ringSucceeding(_ current: KeystoreRecord, with newer: KeyRing, personal: Bool) throws -> KeyRing {
        guard personal, let older = openWithEarlierVaultKey(current, of: newer), older.generation < newer.generation else {
            throw CoreError.tampered(what: "the keystore waiting from the server does not hold this vault's keys")
        }
        newer.absorb(older: older)
        return newer
    }

    /// `record`'s ring opened with one of `ring`'s earlier vault keys, newest first.
    static func openWithEarlierVaultKey(_ record: KeystoreRecord, of ring: KeyRing) -> KeyRing? {
        for key in ring.previousVaultKeys.reversed() {
            if let opened = try? KeystoreSealing.openRing(record, vaultKey: key) { return opened }
        }
        return nil
    }
}
