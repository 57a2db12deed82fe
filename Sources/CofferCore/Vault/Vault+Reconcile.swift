import Crypto
import Foundation
import GRDB

/// The sync steps that need the plaintext: they run inside the vault actor, which owns the keys.
extension Vault {
    /// Merges every item changed both here and on the server (a local and a remote pending row
    /// for one id), in one transaction: the pairs are read (`ReconcilePair`), each decided
    /// (`ReconcileRules`) and worked out on every core (`ReconcileWork`), and each batch,
    /// in their order, planned (`ReconcilePlan`) and written while the next are worked out. Each
    /// merge becomes a local change based on the remote version, remote becomes stable, and the
    /// item is marked for review (⚑).
    ///
    /// Items whose key has not arrived stay in conflict for a later sync. Returns the merged ids.
    public func reconcileItems() throws -> [String] {
        let session = try unlockedSession()
        let (now, revisionTime) = writeTimes
        return try database.write { db in
            let pairs = try ReconcilePair.all(in: db)
            var merged: [String] = []
            try ReconcileWork.forEachBatch(of: pairs, ring: session.ring, signer: session.signer, now: now, revisionTime: revisionTime) { batch, outcomes in
                var plan = ReconcilePlan()
                for (pair, outcome) in zip(batch, outcomes) { plan.take(try outcome.get(), of: pair.rows) }
                try plan.execute(in: db, now: now)
                merged += plan.merged
            }
            CrashPoint.reach("sync.reconcile.items.inside")
            return merged
        }
    }

    /// Takes in a keystore the server sent (with or without a change of this device's beside it):
    /// the union of both key rings, so no key is ever lost. The server's passphrase wrapping is kept
    /// only when it is provably newer (`KeystoreReconcileRules.wrappingSide`). A deletion, or a
    /// keystore that does not open under the vault key, is refused: ours goes up over it. One
    /// transaction.
    @discardableResult
    public func reconcileKeystore() throws -> KeystoreReconcileOutcome {
        let session = try unlockedSession()
        let revisionTime = writeTimes.revision
        return try database.write { db in try reconcileKeystore(session: session, revisionTime: revisionTime, in: db) }
    }

    /// `reconcileKeystore()` inside the caller's transaction.
    func reconcileKeystore(session: UnlockedSession, revisionTime: Timestamp, in db: Database) throws -> KeystoreReconcileOutcome {
        let isShared = sharedVaultID != nil
        guard let remoteChange = try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .remote, in: db)
        else { return .nothing }
        let remote = try VaultDatabase.decodeStored(KeystoreRecord.self, remoteChange.record)
        let local = try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .local, in: db)
            .map { try VaultDatabase.decodeStored(KeystoreRecord.self, $0.record) }
        let stable = try VaultDatabase.stableKeystore(in: db)
        guard let ours = local.flatMap({ $0.isDeleted ? nil : $0 }) ?? stable.flatMap({ $0.isDeleted ? nil : $0 }) else {
            // Nothing of ours to weigh it against: what examine does with a first keystore.
            try VaultDatabase.saveStableKeystore(remote, in: db)
            try VaultDatabase.deletePending(.keystores, CollectionName.keystoreID, source: .remote, in: db)
            return .merged
        }
        // The keys of the local change as stored now first, while the session's vault key is
        // the one it wraps: another process (a `coffer add` next to the screen) may have saved
        // keys since this session unlocked. Merged without them, their items could never be
        // opened again on any device.
        if let local, !local.isDeleted { _ = try absorbForWriting(local, into: session) }
        let generation = session.ring.generation
        var absorbed: Absorbed?
        if remote.isDeleted {
            absorbed = nil
        } else if !isShared {
            // A personal vault has one vault key: a ring it does not open is not ours, even one
            // the passphrase would unwrap (another vault's keystore, moved here).
            if let ring = try? KeystoreSealing.openRing(remote, vaultKey: session.vaultKey) {
                session.ring.formUnion(with: ring)
                absorbed = .sameVaultKey
            } else if KeystoreSuccession.succeeds(remote, vaultKey: session.vaultKey) {
                // New keys made at a device's removal (§9), under a passphrase this session was not
                // opened with: they wait for an unlock with it, which takes them (`ringSucceeding`).
                return .waiting
            }
        } else {
            // A shared vault's generations (§17): a ring this session cannot open yet waits, and one
            // beyond the roster's epoch stops the sync as before (a member lagging an epoch behind
            // sees a real new generation that way until it takes the epoch's key).
            absorbed = try absorbKeystore(remote, into: session)
        }
        // A shared vault's keystore this session cannot open (§17) waits — a later generation under
        // an epoch key not taken yet — unless this copy holds the newest epoch's key: then it is
        // not ours (issue 41, finding 1 in a shared vault; a lagging member's keystore of an older
        // epoch never lands over the newer one: its push is based on the version it replaced).
        if case .unopenable? = absorbed, isShared, try !holdsTheNewestEpochKey() { return .waiting }
        let remoteOpens: Bool
        if let absorbed, absorbed != .unopenable { remoteOpens = true } else { remoteOpens = false }
        var remoteClaim = KeystoreWrappingTag.claim(of: remote, vaultKey: session.vaultKey)
        // A wrapping below the Argon2id floor is never taken; its keys still are.
        if (try? remote.kdf.checkStrength()) == nil { remoteClaim.kdf.memory = -1 }
        let decision = KeystoreReconcileRules.decide(
            remoteIsDeleted: remote.isDeleted, remoteOpens: remoteOpens,
            remoteIsOlder: stable.map { Lineage.isOlder(remote.encrypted, than: $0.encrypted) } ?? false,
            localChangedWrapping: local.map { changed in stable.map { !changed.hasSameWrapping(as: $0) } ?? true } ?? false,
            local: KeystoreWrappingTag.claim(of: ours, vaultKey: session.vaultKey), remote: remoteClaim)
        guard case .merge(let wrappingSide) = decision else {
            try refuseRemoteKeystore(remote, ours: ours, stable: stable, session: session, revisionTime: revisionTime, in: db)
            return .refused
        }
        // The side that wraps the session's vault key now: the server's after a later generation.
        let side: KeystoreReconcileDecision.Side
        if case .sameVaultKey? = absorbed { side = wrappingSide } else { side = session.ring.generation > generation ? .remote : .local }
        let merged = try KeystoreSealing.reseal(session.ring, vaultKey: session.vaultKey,
                                                keepingWrappingOf: side == .local ? ours : remote,
                                                lineage: .following(remote.encrypted, outranking: ours.encrypted, now: revisionTime),
                                                lastModified: remote.lastModified)
        try VaultDatabase.saveStableKeystore(remote, in: db)
        try VaultDatabase.deletePending(.keystores, CollectionName.keystoreID, source: .remote, in: db)
        // Without a change of ours, the server's keystore stands as it is when it holds every key
        // we hold under the wrapping we keep: writing it again would send keystores back and forth.
        if local == nil, side == .remote || remote.hasSameTaggedWrapping(as: ours), try Self.ring(of: remote, opensAs: session) {
            CrashPoint.reach("sync.reconcile.keystores.inside")
            return .merged
        }
        try VaultDatabase.savePending(
            PendingChange(collection: .keystores, id: merged.id, source: .local, action: .update,
                          lastModified: remote.lastModified, record: try RecordCoding.encode(merged)), in: db)
        CrashPoint.reach("sync.reconcile.keystores.inside")
        return .merged
    }

    /// Takes in, inside a write of the keystore, a keystore of the server's that waits for an
    /// unlocked sync when the vault key opens it (it is authenticated, so nothing is left to
    /// check): the write is then based on it, not in conflict with it, and a locked sync after it
    /// has nothing to wait for. One that does not open is left to the sync, which names it.
    func takeWaitingKeystore(_ session: UnlockedSession, revisionTime: Timestamp, in db: Database) throws {
        guard sharedVaultID == nil,
              let waiting = try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .remote, in: db)
                .map({ try VaultDatabase.decodeStored(KeystoreRecord.self, $0.record) }),
              !waiting.isDeleted, (try? KeystoreSealing.openRing(waiting, vaultKey: session.vaultKey)) != nil else { return }
        _ = try reconcileKeystore(session: session, revisionTime: revisionTime, in: db)
    }

    /// Keeps ours against a keystore the server sent that is not ours: it goes up over the server's,
    /// newer than it, so every device takes it back (the server's record is gone from here).
    private func refuseRemoteKeystore(_ remote: KeystoreRecord, ours: KeystoreRecord, stable: KeystoreRecord?,
                                      session: UnlockedSession, revisionTime: Timestamp, in db: Database) throws {
        try VaultDatabase.deletePending(.keystores, CollectionName.keystoreID, source: .remote, in: db)
        let record = try KeystoreSealing.reseal(session.ring, vaultKey: session.vaultKey, keepingWrappingOf: ours,
                                                lineage: .following(stable?.encrypted ?? ours.encrypted,
                                                                    outranking: remote.isDeleted ? ours.encrypted : remote.encrypted,
                                                                    now: revisionTime),
                                                lastModified: remote.isDeleted ? 0 : remote.lastModified)
        // Over a deletion, a new record (Kinto counts a deleted record as absent); else over the server's version.
        try VaultDatabase.savePending(
            PendingChange(collection: .keystores, id: record.id, source: .local, action: remote.isDeleted ? .add : .update,
                          lastModified: record.lastModified, record: try RecordCoding.encode(record)), in: db)
        CrashPoint.reach("sync.refuse.keystores.inside")
    }

    /// Whether `record`'s ring holds exactly the keys of the session's ring (after the union).
    private static func ring(of record: KeystoreRecord, opensAs session: UnlockedSession) throws -> Bool {
        guard let ring = try? KeystoreSealing.openRing(record, vaultKey: session.vaultKey) else { return false }
        let theirs = ring.serialized(), mine = session.ring.serialized()
        defer { theirs.wipe(); mine.wipe() }
        return theirs.withUnsafeBytes { a in mine.withUnsafeBytes { b in a.elementsEqual(b) } }
    }

    /// Learns the item keys of the keystore as stored now (after a remote keystore was applied).
    /// The vault key opens the ring whichever passphrase wraps it, so this works after a
    /// passphrase change on another device too.
    public func refreshKeys() throws {
        guard let session else { return }
        guard let current = try database.read({ try VaultDatabase.currentKeystore(in: $0) }), !current.isDeleted,
              RingSource(current.encrypted) != session.ringSource else { return }
        // Unopenable: a later generation under an epoch key this session has not taken; the
        // next unlock takes it (§17).
        if case .unopenable = try absorbKeystore(current, into: session) { return }
        self.session?.ringSource = RingSource(current.encrypted)
    }

    // MARK: Reviews (⚑)

    func saveReview(_ review: ItemReview, ring: KeyRing, now: Timestamp, in db: Database) throws {
        guard let sealed = try ItemReviewSealing.seal(review, ring: ring) else { return }
        try VaultDatabase.saveReview(id: review.id, sealed: sealed, now: now, in: db)
    }

    /// Items merged on unlock and not yet reviewed, with every field where the two versions differed.
    public func reviews() throws -> [ItemReview] {
        let session = try unlockedSession()
        let rows = try database.read { db in try VaultDatabase.sealedReviews(in: db) }
        return try rows.compactMap { id, text in
            guard session.ring.mayOpen(id),
                  let sealed = Data(base64Encoded: text) else { return nil }
            let plaintext = try session.ring.open(sealed, itemID: id, collection: "reviews", id: id)
            return try? JSONDecoder().decode(ItemReview.self, from: plaintext)
        }
    }

    /// Accepts a merge after applying the user's choices: each reviewed field named in `choices`
    /// with another value than the merge kept takes that value (saved as a local change). Clears ⚑.
    ///
    /// A one-side field swapped to the other side undoes that side's change; `.combined` applies to lists only.
    public func resolveReview(_ id: String, choosing choices: [ItemField: ItemMerge.Choice]) throws {
        guard let review = try reviews().first(where: { $0.id == id }) else { throw CoreError.noSuchItem(id: id) }
        let base = try self.item(id)
        var item = base
        for conflict in review.conflicts {
            guard let choice = choices[conflict.field], choice != conflict.chosen else { continue }
            item.take(choice, of: conflict)
        }
        // Against the version reviewed: another process's edit since is merged, not reverted; the
        // choices and the cleared ⚑ are one transaction.
        _ = try save(item, from: base, acceptingReview: true)
    }

    /// Accepts a merge after swapping to the remote value every field listed in `useRemote`. Clears ⚑.
    public func resolveReview(_ id: String, useRemote fields: Set<ItemField>) throws {
        try resolveReview(id, choosing: Dictionary(uniqueKeysWithValues: fields.map { ($0, .remote) }))
    }
}
