import Crypto
import Foundation
import GRDB

/// The sync steps that need the plaintext: they run inside the vault actor, which owns the keys.
extension Vault {
    /// Merges every item changed both here and on the server (a local and a remote pending row
    /// for one id), in one transaction. Each merge becomes a local change based on the remote
    /// version, remote becomes stable, and the item is marked for review (⚑).
    ///
    /// Items whose key has not arrived stay in conflict for a later sync. Returns the merged ids.
    public func reconcileItems() throws -> [String] {
        let session = try unlockedSession()
        let now = self.now
        return try database.write { db in
            var merged: [String] = []
            let remotes = try VaultDatabase.pendingChanges(.items, source: .remote, in: db)
            for remoteChange in remotes {
                guard let localChange = try VaultDatabase.pendingChange(.items, remoteChange.id, source: .local, in: db)
                else { continue }
                let remoteRecord = try VaultDatabase.decodeStored(ItemRecord.self, remoteChange.record)
                let localRecord = try VaultDatabase.decodeStored(ItemRecord.self, localChange.record)
                guard !remoteRecord.isDeleted, !localRecord.isDeleted, session.ring.contains(remoteRecord.id) else { continue }
                if Lineage.of(remoteRecord.encrypted)?.isMade(from: localRecord.encrypted) == true {
                    // Our push reached the server (its acknowledgement was lost) and another device
                    // edited that version: remote already holds our change, so it simply wins.
                    try VaultDatabase.saveStableItem(remoteRecord, in: db)
                    try VaultDatabase.deletePending(.items, remoteRecord.id, source: .local, in: db)
                    try VaultDatabase.deletePending(.items, remoteRecord.id, source: .remote, in: db)
                    continue
                }
                let local = try ItemSealing.open(localRecord, ring: session.ring)
                let remote: Item
                do {
                    remote = try ItemSealing.open(remoteRecord, ring: session.ring)
                } catch CoreError.tampered {
                    // Nobody can read the server's copy (every device seals with the same item key):
                    // ours replaces it, based on its version so the push is accepted and other
                    // devices do not take ours for an older version.
                    let ours = try ItemSealing.seal(local, ring: session.ring, lineage: .following(remoteRecord.encrypted),
                                                    lastModified: remoteRecord.lastModified)
                    try VaultDatabase.saveStableItem(remoteRecord, in: db)
                    try VaultDatabase.savePending(
                        PendingChange(collection: .items, id: ours.id, source: .local, action: .update,
                                      lastModified: remoteRecord.lastModified, record: try RecordCoding.encode(ours)), in: db)
                    try VaultDatabase.deletePending(.items, remoteRecord.id, source: .remote, in: db)
                    continue
                }
                // An unreadable base is no base: the merge then keeps local scalars and unions sets.
                // Nor is a base newer than remote (the server rolled back or replays an old version):
                // merged against it, every field we changed since remote would silently revert.
                let stableRecord = try VaultDatabase.stableItem(remoteRecord.id, in: db)
                let stable = try stableRecord.flatMap { record -> Item? in
                    guard !Lineage.isOlder(remoteRecord.encrypted, than: record.encrypted) else { return nil }
                    do { return try ItemSealing.open(record, ring: session.ring) } catch CoreError.tampered { return nil }
                }
                let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
                let sealed = try ItemSealing.seal(outcome.merged, ring: session.ring, lineage: .following(remoteRecord.encrypted),
                                                  lastModified: remoteRecord.lastModified)
                try VaultDatabase.saveStableItem(remoteRecord, in: db)
                try VaultDatabase.savePending(
                    PendingChange(collection: .items, id: sealed.id, source: .local, action: .update,
                                  lastModified: remoteRecord.lastModified, record: try RecordCoding.encode(sealed)), in: db)
                try VaultDatabase.deletePending(.items, remoteRecord.id, source: .remote, in: db)
                try saveReview(ItemReview(outcome: outcome), ring: session.ring, now: now, in: db)
                merged.append(sealed.id)
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
        return try database.write { db in
            guard let remoteChange = try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .remote, in: db),
                  let localChange = try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .local, in: db)
            else { return false }
            let remote = try VaultDatabase.decodeStored(KeystoreRecord.self, remoteChange.record)
            let local = try VaultDatabase.decodeStored(KeystoreRecord.self, localChange.record)
            guard !remote.isDeleted else {
                // The server lost or dropped its keystore: ours goes up again as a new record.
                try VaultDatabase.deletePending(.keystores, CollectionName.keystoreID, source: .remote, in: db)
                return true
            }
            try remote.kdf.checkStrength()
            let remoteRing = try KeystoreSealing.openRing(remote, vaultKey: session.vaultKey)
            session.ring.formUnion(with: remoteRing)
            let stable = try VaultDatabase.stableKeystore(in: db)
            // An older remote keystore (a rollback or replay) never brings back an old passphrase.
            let remoteIsOlder = stable.map { Lineage.isOlder(remote.encrypted, than: $0.encrypted) } ?? false
            let localChangedWrapping = remoteIsOlder || (stable.map { !local.hasSameWrapping(as: $0) } ?? true)
            let wrapping = localChangedWrapping ? local : remote
            let merged = try KeystoreSealing.reseal(session.ring, vaultKey: session.vaultKey, keepingWrappingOf: wrapping,
                                                    lineage: .following(remote.encrypted), lastModified: remote.lastModified)
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
        guard let current = try database.read({ try VaultDatabase.currentKeystore(in: $0) }), !current.isDeleted else { return }
        session.ring.formUnion(with: try KeystoreSealing.openRing(current, vaultKey: session.vaultKey))
    }

    // MARK: Reviews (⚑)

    func saveReview(_ review: ItemReview, ring: KeyRing, now: Timestamp, in db: Database) throws {
        // The key used in place: a copy of its own (a locked page mapped per merge) cost more than the merge.
        guard let key = ring.withKey(for: review.id, { SymmetricKey(data: $0) }) else { return }
        let plaintext = try JSONEncoder().encode(review)
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
        // Against the version reviewed: another process's edit since is merged, not reverted.
        _ = try update(item, from: base)
        try database.write { db in try db.execute(sql: "DELETE FROM reviews WHERE id = ?", arguments: [id]) }
    }

    /// Accepts a merge after swapping to the remote value every field listed in `useRemote`. Clears ⚑.
    public func resolveReview(_ id: String, useRemote fields: Set<ItemField>) throws {
        try resolveReview(id, choosing: Dictionary(uniqueKeysWithValues: fields.map { ($0, .remote) }))
    }
}
