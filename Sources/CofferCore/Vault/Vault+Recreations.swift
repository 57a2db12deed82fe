import Foundation
import GRDB

extension Vault {
    /// Raises the revision of each local update that goes up over a tombstone (an edit made before
    /// this device learnt another one removed the item) to at least `floors[id]`, sealing it again.
    ///
    /// Such an edit was sealed with its maker's clock at the time, which can be earlier than the
    /// removed version's revision (an edit made offline, then another device edited and removed
    /// the item). A device still holding that removed version would take ours for an older one
    /// served again (a rollback) when they are not siblings. The floor is the later of the
    /// server's timestamp for the collection when the tombstone came (past every version pushed
    /// before it, whatever its maker's clock) and the earliest the server's clock reads now (it is
    /// a version made now; `writeTimes`). Needs the keys: while locked, the edit goes up with the
    /// revision it has. Returns how many were sealed again.
    @discardableResult
    public func floorRevisions(_ floors: [String: UInt64]) throws -> Int {
        guard !floors.isEmpty else { return 0 }
        let session = try unlockedSession()
        let now = UInt64(max(0, writeTimes.revision.milliseconds))
        return try database.write { db in
            var count = 0
            for (id, serverFloor) in floors.sorted(by: { $0.key < $1.key }) {
                let floor = max(serverFloor, now)
                guard let change = try VaultDatabase.pendingChange(.items, id, source: .local, in: db),
                      change.action != .remove else { continue }
                let record = try VaultDatabase.decodeStored(ItemRecord.self, change.record)
                guard let lineage = Lineage.of(record.encrypted), lineage.revision < floor,
                      session.ring.contains(id) else { continue }
                let item = try ItemSealing.open(record, ring: session.ring)
                let sealed = try session.seal(item, lineage: Lineage(revision: floor, parent: lineage.parent))
                var raised = change
                raised.record = try RecordCoding.encode(sealed)
                try VaultDatabase.savePending(raised, in: db)
                count += 1
            }
            return count
        }
    }
}
