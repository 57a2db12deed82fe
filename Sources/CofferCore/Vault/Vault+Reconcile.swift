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
            try ReconcileWork.forEachBatch(of: pairs, ring: session.ring, now: now, revisionTime: revisionTime) { batch, outcomes in
                var plan = ReconcilePlan()
                for (pair, outcome) in zip(batch, outcomes) { plan.take(try outcome.get(), of: pair.rows) }
                try plan.execute(in: db, now: now)
                merged += plan.merged
            }
            CrashPoint.reach("sync.reconcile.items.inside")
            return merged
        }
    }

    /// Resolves a keystore changed both here and on the server: the union of both key rings. The
    /// passphrase wrapping that changed since stable wins (local if both changed). One transaction.
    /// Returns whether there was a conflict to resolve.
    @discardableResult
    public func reconcileKeystore() throws -> Bool {
        let session = try unlockedSession()
        let revisionTime = writeTimes.revision
        return try database.write { db in
            guard let remoteChange = try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .remote, in: db),
                  let localChange = try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .local, in: db)
            else { return false }
            let remote = try VaultDatabase.decodeStored(KeystoreRecord.self, remoteChange.record)
            let local = try VaultDatabase.decodeStored(KeystoreRecord.self, localChange.record)
            let stable = try VaultDatabase.stableKeystore(in: db)
            let decision = KeystoreReconcileRules.decide(
                remoteIsDeleted: remote.isDeleted,
                remoteIsOlder: stable.map { Lineage.isOlder(remote.encrypted, than: $0.encrypted) } ?? false,
                localChangedWrapping: stable.map { !local.hasSameWrapping(as: $0) } ?? true)
            guard case .merge(let wrappingSide) = decision else {
                try VaultDatabase.deletePending(.keystores, CollectionName.keystoreID, source: .remote, in: db)
                return true
            }
            try remote.kdf.checkStrength()
            // The keys of the local change as stored now first, while the session's vault key is
            // the one it wraps: another process (a `coffer add` next to the screen) may have saved
            // keys since this session unlocked. Merged without them, their items could never be
            // opened again on any device.
            if !local.isDeleted { _ = try absorbForWriting(local, into: session) }
            let generation = session.ring.generation
            let absorbed = try absorbKeystore(remote, into: session)
            // A shared vault's later generation this session cannot open yet (§17): both wait.
            if case .unopenable = absorbed { return false }
            // The side that wraps the session's vault key now: the server's after a later generation.
            let side: KeystoreReconcileDecision.Side
            if case .sameVaultKey = absorbed { side = wrappingSide } else { side = session.ring.generation > generation ? .remote : .local }
            let merged = try KeystoreSealing.reseal(session.ring, vaultKey: session.vaultKey,
                                                    keepingWrappingOf: side == .local ? local : remote,
                                                    lineage: .following(remote.encrypted, outranking: local.encrypted, now: revisionTime),
                                                    lastModified: remote.lastModified)
            try VaultDatabase.saveStableKeystore(remote, in: db)
            try VaultDatabase.savePending(
                PendingChange(collection: .keystores, id: merged.id, source: .local, action: .update,
                              lastModified: remote.lastModified, record: try RecordCoding.encode(merged)), in: db)
            try VaultDatabase.deletePending(.keystores, CollectionName.keystoreID, source: .remote, in: db)
            CrashPoint.reach("sync.reconcile.keystores.inside")
            return true
        }
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
