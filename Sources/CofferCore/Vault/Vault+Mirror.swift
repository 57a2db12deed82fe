import Foundation
import GRDB

extension Vault {
    /// Authenticates what the server sent over items this device could read (the mirror,
    /// `SyncStore.mirror`): a stable item that opens under its key ends its mirror; one that does
    /// not (garbage, another item's ciphertext, bytes that are no envelope) is refused: the version
    /// kept goes back to stable and up again, sealed anew newer than the server's, so every device
    /// takes it back. One transaction. Returns how many were refused.
    ///
    /// A stable item whose key has not arrived keeps its mirror for a later sync; one removed since
    /// ends it (a plain deletion is not judged here: architecture §4, "The mirror").
    public func checkMirroredItems() throws -> Int {
        // A shared vault keeps no mirror (`SyncContext.mirrorsReplacedItems`).
        guard sharedVaultID == nil else { return 0 }
        let session = try unlockedSession()
        let revisionTime = writeTimes.revision
        return try database.write { db in
            var refused = 0
            for (id, text) in try VaultDatabase.mirroredItems(in: db) {
                guard let stable = try VaultDatabase.stableItem(id, in: db), !stable.isDeleted else {
                    try VaultDatabase.dropMirror(.items, id, in: db)
                    continue
                }
                do {
                    _ = try ItemSealing.openFetched(stable, ring: session.ring)
                    try VaultDatabase.dropMirror(.items, id, in: db)
                    continue
                } catch CoreError.itemKeyMissing {
                    continue
                } catch {
                    // Not ours: below.
                }
                let kept = try RecordCoding.decode(ItemRecord.self, from: text)
                guard let item = try? ItemSealing.open(kept, ring: session.ring) else {
                    // Nothing better to put back: what the server sent stays, shown as damaged.
                    try VaultDatabase.dropMirror(.items, id, in: db)
                    continue
                }
                refused += 1
                try VaultDatabase.saveStableItem(kept, in: db)
                if let local = try VaultDatabase.pendingChange(.items, id, source: .local, in: db),
                   let record = try? RecordCoding.decode(ItemRecord.self, from: local.record),
                   record.isDeleted || (try? ItemSealing.open(record, ring: session.ring)) != nil {
                    // An edit or removal of this device's goes up over the server's version instead.
                    var rebased = local
                    rebased.key = nil
                    rebased.lastModified = stable.lastModified
                    try VaultDatabase.savePending(rebased, in: db)
                } else {
                    let lineage = Lineage.following(kept.encrypted, outranking: stable.encrypted, now: revisionTime)
                    let again = try ItemSealing.seal(item, ring: session.ring, lineage: lineage, lastModified: stable.lastModified)
                    try VaultDatabase.savePending(
                        PendingChange(collection: .items, id: id, source: .local, action: .update,
                                      lastModified: stable.lastModified, record: try RecordCoding.encode(again)), in: db)
                }
                try VaultDatabase.dropMirror(.items, id, in: db)
            }
            // Our copies are in place of the refused versions, not committed yet.
            if refused > 0 { CrashPoint.reach("sync.refuse.items.inside") }
            return refused
        }
    }
}
