import Foundation
import GRDB

/// A shared vault's keystore mirror (issue 41, finding 1 in a shared vault; architecture §17): a
/// fetch puts the server's keystore in stable while locked — a member must see the next
/// generation before it takes the epoch's key — and keeps the one it replaced beside it. Once this
/// copy holds the newest epoch's key, a keystore that key does not open is no keystore of the
/// vault's (garbage, another vault's, the person's personal one moved here): the one kept goes
/// back, so a server can no longer lock members out.
extension Vault {
    /// At an unlocked sync: ends the mirror when the stable keystore opens; refuses it when it does
    /// not and this copy holds the newest epoch's key — the kept keystore goes back to stable and
    /// up again, sealed newer than the server's. Returns how many were refused, here or by the
    /// unlock since the last sync (`putKeptKeystoreBack`).
    public func checkMirroredKeystore() throws -> Int {
        guard sharedVaultID != nil else { return 0 }
        let atUnlock = try takeKeystoreRefusedAtUnlock()
        let session = try unlockedSession()
        let revisionTime = writeTimes.revision
        let holdsNewest = try holdsTheNewestEpochKey()
        return try atUnlock + database.write { db in
            guard let kept = try VaultDatabase.mirroredKeystore(in: db) else { return 0 }
            let stable = try VaultDatabase.stableKeystore(in: db)
            if let stable, !stable.isDeleted, Self.opens(stable, session: session) {
                try VaultDatabase.dropMirror(.keystores, CollectionName.keystoreID, in: db)
                return 0
            }
            // A later epoch's keystore, whose key this copy has not taken yet: it waits.
            guard holdsNewest else { return 0 }
            try VaultDatabase.dropMirror(.keystores, CollectionName.keystoreID, in: db)
            // Nothing better to put back: what the server sent stays (the unlock says what is wrong).
            guard Self.opens(kept, session: session) else { return 0 }
            let serverStamp = stable.map { $0.isDeleted ? 0 : $0.lastModified } ?? 0
            let record = try KeystoreSealing.reseal(session.ring, vaultKey: session.vaultKey, keepingWrappingOf: kept,
                                                    lineage: .following(kept.encrypted, outranking: stable?.encrypted, now: revisionTime),
                                                    lastModified: serverStamp)
            try VaultDatabase.saveStableKeystore(kept, in: db)
            // A local change of this copy's is sealed over the kept keystore already; else ours goes up.
            if try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .local, in: db) == nil {
                try VaultDatabase.savePending(
                    PendingChange(collection: .keystores, id: record.id, source: .local, action: serverStamp == 0 ? .add : .update,
                                  lastModified: serverStamp, record: try RecordCoding.encode(record)), in: db)
            }
            CrashPoint.reach("sync.refuse.keystores.inside")
            return 1
        }
    }

    /// At an unlock that found no key of this copy's opening the stored keystore: when this copy
    /// holds the newest epoch's key and the keystore kept in the mirror opens with it, the stored
    /// one is not the vault's and the kept one goes back to stable. Returns the server's keystore
    /// it replaced, for `putKeptKeystoreBack` once unlocked; nil when there is nothing to put back.
    func restoreMirroredKeystore(epochKey: SecureBuffer) throws -> KeystoreRecord? {
        guard sharedVaultID != nil, try holdsTheNewestEpochKey(),
              let kept = try database.read({ try VaultDatabase.mirroredKeystore(in: $0) }),
              (try? KeystoreSealing.open(kept, passphrase: epochKey)) != nil else { return nil }
        return try database.write { db in
            let server = try VaultDatabase.stableKeystore(in: db)
            try VaultDatabase.saveStableKeystore(kept, in: db)
            try VaultDatabase.dropMirror(.keystores, CollectionName.keystoreID, in: db)
            // A deletion the server sent is what ours goes up over as a new record.
            guard let server else {
                var deleted = kept
                deleted.isDeleted = true
                return deleted
            }
            return server
        }
    }

    /// After `restoreMirroredKeystore` and the unlock: ours goes up over the server's keystore,
    /// sealed newer than it (as `checkMirroredKeystore` does at a sync), and the next sync names it.
    func putKeptKeystoreBack(over server: KeystoreRecord) throws {
        let session = try unlockedSession()
        let revisionTime = writeTimes.revision
        try database.write { db in
            try VaultDatabase.setMeta(.keystoreRefusedAtUnlock, "1", in: db)
            guard try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .local, in: db) == nil,
                  let kept = try VaultDatabase.stableKeystore(in: db) else { return }
            let stamp = server.isDeleted ? 0 : server.lastModified
            let record = try KeystoreSealing.reseal(session.ring, vaultKey: session.vaultKey, keepingWrappingOf: kept,
                                                    lineage: .following(kept.encrypted, outranking: server.encrypted, now: revisionTime),
                                                    lastModified: stamp)
            try VaultDatabase.savePending(
                PendingChange(collection: .keystores, id: record.id, source: .local, action: stamp == 0 ? .add : .update,
                              lastModified: stamp, record: try RecordCoding.encode(record)), in: db)
        }
    }

    /// How many keystores an unlock refused since the last sync asked (0 or 1), forgotten here.
    public func takeKeystoreRefusedAtUnlock() throws -> Int {
        guard try database.meta(.keystoreRefusedAtUnlock) != nil else { return 0 }
        try database.setMeta(.keystoreRefusedAtUnlock, nil)
        return 1
    }

    /// Whether `record` opens for `session`: under its vault key, or as a generation its keys unwrap.
    private static func opens(_ record: KeystoreRecord, session: UnlockedSession) -> Bool {
        if (try? KeystoreSealing.openRing(record, vaultKey: session.vaultKey)) != nil { return true }
        return (try? KeystoreSealing.unwrapVaultKey(record, keys: session.keys)) != nil
    }
}
