import Foundation
import GRDB

/// A shared vault's key ring generations (architecture §17, "New keys at a revocation"): the
/// member device that begins an epoch by a removal gives the vault a new vault key, hashing key
/// and item keys; every other device takes the new ring when it arrives. Nothing is sealed again
/// (a revocation costs O(members), issue 42): an item keeps its old key, retired, until its next
/// edit. Someone removed keeps the old keys, which open nothing written with the new ones; what
/// they write with the old ones, no member's device takes (`ItemSignature`).
extension Vault {
    /// How a stored keystore's ring went into a session's.
    enum Absorbed {
        /// Wrapped around the session's vault key: keys added by another process or device.
        case sameVaultKey
        /// Another vault key, opened with the session's passphrase keys: a ring of a later
        /// generation (taken in place, the session's keys retired) or of an earlier one (its keys retired).
        case otherVaultKey
        /// Not openable with this session: a generation wrapped under an epoch key it lacks.
        case unopenable
    }

    /// Takes `record`'s key ring into `session`'s (its vault key changes in place when the
    /// record's generation is later).
    func absorbKeystore(_ record: KeystoreRecord, into session: UnlockedSession) throws -> Absorbed {
        if let ring = try? KeystoreSealing.openRing(record, vaultKey: session.vaultKey) {
            session.ring.formUnion(with: ring)
            return .sameVaultKey
        }
        guard let vaultKey = try? KeystoreSealing.unwrapVaultKey(record, keys: session.keys) else {
            // A personal vault's keystore from before its new keys at a device's removal (§9),
            // sealed under a vault key the ring keeps: its keys are retired here.
            if sharedVaultID == nil, let older = Self.openWithEarlierVaultKey(record, of: session.ring),
               older.generation < session.ring.generation {
                session.ring.absorb(older: older)
                return .otherVaultKey
            }
            return .unopenable
        }
        let ring = try KeystoreSealing.openRing(record, vaultKey: vaultKey)
        if ring.generation > session.ring.generation {
            // A generation is begun by an epoch's member: one beyond the epoch whose key this copy
            // holds was forged (someone removed who kept an old epoch's key, with the server's
            // help), and taking it would stop the next real generation from replacing it.
            let epoch = (try database.meta(.shareEpoch)).flatMap { UInt64($0) } ?? 0
            guard UInt64(ring.generation) <= epoch else {
                throw CoreError.tampered(what: "the keystore claims key generation \(ring.generation), beyond the roster's epoch \(epoch)")
            }
            session.ring.adopt(newer: ring)
            session.vaultKey.withUnsafeMutableBytes { target in
                vaultKey.withUnsafeBytes { target.copyMemory(from: $0) }
            }
        } else {
            session.ring.absorb(older: ring)
        }
        return .otherVaultKey
    }

    /// `absorbKeystore` for a write: a session that cannot open the stored keystore is stale (the
    /// vault's keys changed under an epoch it has not taken), so the vault locks; unlocking
    /// again takes the new key.
    func absorbForWriting(_ record: KeystoreRecord, into session: UnlockedSession) throws -> Absorbed {
        let absorbed = try absorbKeystore(record, into: session)
        if case .unopenable = absorbed {
            lock()
            throw CoreError.locked
        }
        return absorbed
    }

    /// Begins key ring generation `generation` on the device that began the epoch: a new vault
    /// key wrapped under the epoch's key, a fresh hashing key and item keys, the old ones retired
    /// (they still open every version sealed before). One transaction; O(items) of keys, no item written.
    func rekey(to generation: UInt32) throws {
        let session = try unlockedSession()
        let revisionTime = writeTimes.revision
        let vaultKey = SecureBuffer.random(count: KeyRing.keyLength)
        var next: KeyRing?
        try database.write { db in
            if let current = try VaultDatabase.currentKeystore(in: db), !current.isDeleted {
                _ = try absorbForWriting(current, into: session)
            }
            // Another process of this copy (a command's unlock beside the screen's) gave it this
            // generation since the session opened: taken in place above, not made twice.
            guard session.ring.generation < generation else {
                try VaultDatabase.setMeta(.shareRekey, nil, in: db)
                return
            }
            let ring = session.ring.rekeyed(generation: generation)
            let lineage = Lineage.following(try VaultDatabase.stableKeystore(in: db)?.encrypted, now: revisionTime)
            try VaultDatabase.recordLocalChange(try KeystoreSealing.seal(ring, vaultKey: vaultKey, keys: session.keys, kdf: session.kdf,
                                                                          lineage: lineage, lastModified: 0), in: db)
            CrashPoint.reach("share.rekey.inside-write")
            try VaultDatabase.setMeta(.shareRekey, nil, in: db)
            next = ring
        }
        if let next { self.session = UnlockedSession(keys: session.keys, ring: next, vaultKey: vaultKey, kdf: session.kdf, signer: session.signer) }
    }
}
