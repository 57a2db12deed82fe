import CofferCore
import Foundation
import GRDB

/// Step 5, apply: the changes the server accepted move to stable with their new timestamp, and
/// leave `pending` — one transaction. A local edit made while the push was in flight stays
/// pending, now based on the server's new version.
enum ApplyStep {
    static func run(_ acknowledgements: [PushStep.Acknowledgement], _ context: SyncContext) throws {
        guard !acknowledgements.isEmpty else { return }
        try context.database.write { db in
            for ack in acknowledgements {
                if let stamp = ack.lastModified {
                    // A record without a stamp cannot become stable safely; the next fetch brings it.
                    guard stamp > 0 else { continue }
                    try StableRecords.save(ack.pushedRecord, lastModified: stamp, in: ack.collection, db: db)
                } else {
                    try StableRecords.delete(ack.collection, ack.id, db: db)
                }
                guard var current = try VaultDatabase.pendingChange(ack.collection, ack.id, source: .local, in: db) else {
                    continue
                }
                if current.record == ack.pushedRecord {
                    try VaultDatabase.deletePending(ack.collection, ack.id, source: .local, in: db)
                } else if let stamp = ack.lastModified {
                    current.lastModified = stamp
                    if current.action == .add { current.action = .update }
                    try VaultDatabase.savePending(current, in: db)
                } else if current.action != .remove {
                    current.lastModified = 0
                    current.action = .add
                    try VaultDatabase.savePending(current, in: db)
                }
            }
            CrashPoint.reach("sync.apply.inside")
        }
    }
}
