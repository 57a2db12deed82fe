import Crypto
import Foundation
import GRDB

/// The sync steps that need the plaintext: they run inside the vault actor, which owns the keys.
extension Vault {
    /// Merges every item changed both here and on the server (a local and a remote pending row
    /// for one id), in one transaction: each pair is read, decided (`ReconcileRules`), planned
    /// (`ReconcilePlan`), and the plan written. Each merge becomes a local change based on the
    /// remote version, remote becomes stable, and the item is marked for review (⚑).
    ///
    /// Items whose key has not arrived stay in conflict for a later sync. Returns the merged ids.
    public func reconcileItems() throws -> [String] {
        let session = try unlockedSession()
        let now = self.now
        return try database.write { db in
            var plan = ReconcilePlan()
            for remoteChange in try VaultDatabase.pendingChanges(.items, source: .remote, in: db) {
                guard let localChange = try VaultDatabase.pendingChange(.items, remoteChange.id, source: .local, in: db)
                else { continue }
                let facts = ReconcileFacts(local: try VaultDatabase.decodeStored(ItemRecord.self, localChange.record),
                                           remote: try VaultDatabase.decodeStored(ItemRecord.self, remoteChange.record),
                                           hasKey: session.ring.contains(remoteChange.id))
                var opened: ReconcileFacts.Remote?
                func openRemote() throws -> ReconcileFacts.Remote {
                    if let opened { return opened }
                    let result: ReconcileFacts.Remote
                    do {
                        result = .readable(try ItemSealing.open(facts.remote, ring: session.ring))
                    } catch CoreError.tampered {
                        result = .unreadable  // only a failed authentication; anything else is thrown
                    }
                    opened = result
                    return result
                }
                switch try ReconcileRules.decide(facts, remote: openRemote) {
                case .wait:
                    continue
                case .alreadyOurs:
                    plan.acceptRemote(facts.remote)
                case .replaceUnreadable:
                    // Nobody can read the server's copy (every device seals with the same item key):
                    // ours replaces it, based on its version so the push is accepted and other
                    // devices do not take ours for an older version.
                    let local = try ItemSealing.open(facts.local, ring: session.ring)
                    try plan.replace(facts.remote, with: ItemSealing.seal(local, ring: session.ring,
                                                                          lineage: .following(facts.remote.encrypted, outranking: facts.local.encrypted, now: now),
                                                                          lastModified: facts.remote.lastModified))
                case .merge:
                    let local = try ItemSealing.open(facts.local, ring: session.ring)
                    guard case .readable(let remote) = try openRemote() else { continue }
                    // An unreadable or unusable base is no base: the merge then keeps local scalars and unions sets.
                    let stable = try VaultDatabase.stableItem(facts.remote.id, in: db).flatMap { record -> Item? in
                        guard ReconcileRules.isUsableBase(record, against: facts.remote) else { return nil }
                        do { return try ItemSealing.open(record, ring: session.ring) } catch CoreError.tampered { return nil }
                    }
                    let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now,
                                                  remoteServerTime: Timestamp(milliseconds: facts.remote.lastModified))
                    // Made from remote, and newer than ours (which is newer than stable) even when
                    // remote is an older version the server served back.
                    let sealed = try ItemSealing.seal(outcome.merged, ring: session.ring,
                                                      lineage: .following(facts.remote.encrypted, outranking: facts.local.encrypted,
                                                                          now: now),
                                                      lastModified: facts.remote.lastModified)
                    try plan.replace(facts.remote, with: sealed, review: ItemReview(outcome: outcome))
                }
            }
            try plan.execute(in: db) { review in try saveReview(review, ring: session.ring, now: now, in: db) }
            CrashPoint.reach("sync.reconcile.items.inside")
            return plan.merged
        }
    }

    /// Resolves a keystore changed both here and on the server: the union of both key rings. The
    /// passphrase wrapping that changed since stable wins (local if both changed). One transaction.
    /// Returns whether there was a conflict to resolve.
    @discardableResult
    public func reconcileKeystore() throws -> Bool {
        let session = try unlockedSession()
        let now = self.now
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
            session.ring.formUnion(with: try KeystoreSealing.openRing(remote, vaultKey: session.vaultKey))
            // And the keys of the local change as stored now: another process (a `coffer add` next
            // to the screen) may have saved keys since this session unlocked. Merged without them,
            // their items could never be opened again on any device.
            if !local.isDeleted {
                session.ring.formUnion(with: try KeystoreSealing.openRing(local, vaultKey: session.vaultKey))
            }
            let merged = try KeystoreSealing.reseal(session.ring, vaultKey: session.vaultKey,
                                                    keepingWrappingOf: wrappingSide == .local ? local : remote,
                                                    lineage: .following(remote.encrypted, outranking: local.encrypted, now: now),
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
              current.encrypted != session.ringSource else { return }
        session.ring.formUnion(with: try KeystoreSealing.openRing(current, vaultKey: session.vaultKey))
        self.session?.ringSource = current.encrypted
    }

    // MARK: Reviews (⚑)

    func saveReview(_ review: ItemReview, ring: KeyRing, now: Timestamp, in db: Database) throws {
        // The key used in place: a copy of its own (a locked page mapped per merge) cost more than the merge.
        guard let key = ring.withKey(for: review.id, { SymmetricKey(data: $0) }) else { return }
        let plaintext = Data(ItemReviewJSON.encode(review))
        let sealed = try Envelope.seal(plaintext, symmetricKey: key, collection: "reviews", id: review.id)
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO reviews (id, created, sealed) VALUES (?, ?, ?)")
            .execute(arguments: [review.id, now.milliseconds, sealed.base64EncodedString()])
    }

    /// Items merged on unlock and not yet reviewed, with every field where the two versions differed.
    public func reviews() throws -> [ItemReview] {
        let session = try unlockedSession()
        let rows = try database.read { db in try Row.fetchAll(db, sql: "SELECT id, sealed FROM reviews ORDER BY created") }
        return try rows.compactMap { row in
            let id: String = row["id"]
            guard let key = session.ring.withKey(for: id, { SymmetricKey(data: $0) }),
                  let sealed = Data(base64Encoded: row["sealed"] as String) else { return nil }
            let plaintext = try Envelope.open(sealed, symmetricKey: key, collection: "reviews", id: id)
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
