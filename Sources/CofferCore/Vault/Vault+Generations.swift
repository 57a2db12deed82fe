import Foundation
import GRDB

/// A shared vault's key ring generations (architecture §17, "New keys at a revocation"): the
/// member device that begins an epoch by a removal gives the vault a new vault key, hashing key
/// and item keys, and seals every item again; every other device takes the new ring when it
/// arrives and seals again what only a retired key opens. Someone removed keeps the old keys,
/// which open nothing written since.
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
        guard let vaultKey = try? KeystoreSealing.unwrapVaultKey(record, keys: session.keys) else { return .unopenable }
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
    /// key wrapped under the epoch's key, a fresh hashing key and item keys, and every item this
    /// device can open sealed again as a local change (each pushed with `If-Match`, so an edit
    /// made meanwhile elsewhere comes back as a conflict and is merged, not lost). One transaction.
    func rekey(to generation: UInt32) throws {
        let session = try unlockedSession()
        let revisionTime = writeTimes.revision
        let vaultKey = SecureBuffer.random(count: KeyRing.keyLength)
        var next: KeyRing?
        try database.write { db in
            if let current = try VaultDatabase.currentKeystore(in: db), !current.isDeleted {
                _ = try absorbForWriting(current, into: session)
            }
            let ring = session.ring.rekeyed(generation: generation)
            let lineage = Lineage.following(try VaultDatabase.stableKeystore(in: db)?.encrypted, now: revisionTime)
            try VaultDatabase.recordLocalChange(try KeystoreSealing.seal(ring, vaultKey: vaultKey, keys: session.keys, kdf: session.kdf,
                                                                          lineage: lineage, lastModified: 0), in: db)
            try Self.sealAgain(try VaultDatabase.currentItems(in: db), opening: session.ring, sealing: ring, signer: session.signer,
                               revisionTime: revisionTime, in: db)
            CrashPoint.reach("share.rekey.inside-write")
            try VaultDatabase.setMeta(.shareRekey, nil, in: db)
            try VaultDatabase.setMeta(.shareResealed, String(generation), in: db)
            next = ring
        }
        if let next { self.session = UnlockedSession(keys: session.keys, ring: next, vaultKey: vaultKey, kdf: session.kdf, signer: session.signer) }
    }

    /// Seals again, under the ring's current keys, every item only a retired key opens (sealed
    /// before this device took the generation), giving an item the ring lacks a key for a fresh
    /// one. Once per generation per device (`meta.share_resealed`). Returns how many.
    @discardableResult
    public func sealAgainUnderCurrentGeneration() throws -> Int {
        let session = try unlockedSession()
        let generation = session.ring.generation
        guard generation > 0, try database.meta(.shareResealed) != String(generation) else { return 0 }
        let revisionTime = writeTimes.revision
        return try database.write { db in
            // Only what a retired key opens: an item whose key has not arrived yet must not get
            // a fresh one here, or the union of keys would keep ours when its own arrives.
            let stale = try VaultDatabase.currentItems(in: db).filter { current in
                session.ring.hasRetiredKeys(for: current.record.id)
                    && (try? ItemSealing.open(current.record, ring: session.ring, allowingRetired: false)) == nil
                    && (try? ItemSealing.open(current.record, ring: session.ring)) != nil
            }
            var addedKeys = false
            for current in stale where session.ring.addKey(for: current.record.id) { addedKeys = true }
            if addedKeys { try saveKeystore(session, revisionTime: revisionTime, in: db) }
            let count = try Self.sealAgain(stale, opening: session.ring, sealing: session.ring, signer: session.signer,
                                           revisionTime: revisionTime, in: db)
            try VaultDatabase.setMeta(.shareResealed, String(generation), in: db)
            return count
        }
    }

    /// Each of `items` opened with `opening` (retired keys too) and sealed with `sealing`'s
    /// current key as a local change: a stable version as an edit of it, a local change in its
    /// place (still based on the version it was made from). What does not open is left as it is.
    @discardableResult
    static func sealAgain(_ items: [CurrentItemRecord], opening: KeyRing, sealing: KeyRing, signer: ItemSigner?,
                          revisionTime: Timestamp, in db: Database) throws -> Int {
        var count = 0
        for current in items {
            guard let item = try? ItemSealing.open(current.record, ring: opening) else { continue }
            let lineage = current.hasLocalChange
                ? (Lineage.of(current.record.encrypted) ?? .following(nil, now: revisionTime))
                : Lineage.following(current.record.encrypted, now: revisionTime)
            try VaultDatabase.recordLocalChange(try ItemSealing.seal(item, ring: sealing, lineage: lineage, lastModified: 0, signer: signer),
                                                in: db)
            count += 1
        }
        return count
    }
}
