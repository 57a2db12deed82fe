import Foundation
import GRDB

extension Vault {
    /// Authenticates the removals the server sent of items this device holds and has not changed
    /// (fetch and examine leave them waiting as remote changes: issue 41). A removal sealed under
    /// the item's key removes the item; anything else — a plain tombstone, garbage, another item's
    /// removal — is refused: the item stays, and goes up again over the server's record, sealed
    /// anew newer than it, so every device takes it back. One transaction. Returns how many were
    /// refused.
    ///
    /// A removal of an item whose key has not arrived waits for a later sync. In a shared vault
    /// fetch has already checked that a current member signed it (`SignatureGate`).
    public func authenticateRemovals() throws -> Int {
        let session = try unlockedSession()
        // Most syncs bring none: no write transaction for them.
        guard try database.read({ db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM pending WHERE source = 'remote' AND collection = 'items' AND action = 'remove')
                """) ?? false
        }) else { return 0 }
        let revisionTime = writeTimes.revision
        return try database.write { db in
            var refused = 0
            for remote in try VaultDatabase.pendingChanges(.items, source: .remote, in: db) where remote.action == .remove {
                // Against a change of this device's, examine decided already.
                guard try VaultDatabase.pendingChange(.items, remote.id, source: .local, in: db) == nil else { continue }
                guard let stable = try VaultDatabase.stableItem(remote.id, in: db) else {
                    try VaultDatabase.deletePending(.items, remote.id, source: .remote, in: db)
                    continue
                }
                let removal = try? VaultDatabase.decodeStored(ItemRecord.self, remote.record)
                let authentic: Bool
                do {
                    authentic = try removal.map { try RemovalSealing.isAuthentic($0, ring: session.ring) } ?? false
                } catch CoreError.itemKeyMissing {
                    continue
                }
                try VaultDatabase.deletePending(.items, remote.id, source: .remote, in: db)
                if authentic {
                    // As examine applied removals before: its files are the remover's to delete.
                    try VaultDatabase.saveStableItem(.tombstone(id: remote.id, lastModified: remote.lastModified), in: db)
                    continue
                }
                refused += 1
                try VaultDatabase.savePending(
                    try putBack(stable, over: removal, at: remote.lastModified, session: session, revisionTime: revisionTime),
                    in: db)
            }
            if refused > 0 { CrashPoint.reach("sync.refuse.items.inside") }
            return refused
        }
    }

    /// Stable's version going up over a refused removal: sealed again newer than it when it opens,
    /// as it is otherwise; an update of the record the server keeps, or a new record where the
    /// server holds none (a plain tombstone).
    private func putBack(_ stable: ItemRecord, over removal: ItemRecord?, at stamp: Int64, session: UnlockedSession,
                         revisionTime: Timestamp) throws -> PendingChange {
        let base: Int64 = removal?.isSealedRemoval == true ? stamp : 0
        var record = stable
        if let item = try? ItemSealing.open(stable, ring: session.ring) {
            let lineage = Lineage.following(stable.encrypted, outranking: removal?.encrypted, now: revisionTime)
            record = try session.seal(item, lineage: lineage, lastModified: base)
        }
        record.lastModified = base
        return PendingChange(collection: .items, id: stable.id, source: .local, action: base == 0 ? .add : .update,
                             lastModified: base, record: try RecordCoding.encode(record))
    }
}
