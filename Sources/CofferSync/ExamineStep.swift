import CofferCore
import Foundation
import GRDB

/// Step 2, examine: remote changes without a local counterpart go to stable; the pairs follow
/// `ExamineRules`; true conflicts stay in `pending` for reconcile — one transaction.
enum ExamineStep {
    struct Outcome {
        var applied = 0
        var conflicts = 0
    }

    static func run(_ collection: CollectionName, _ context: SyncContext) throws -> Outcome {
        try context.database.write { db in
            var outcome = Outcome()
            for remote in try VaultDatabase.pendingChanges(collection, source: .remote, in: db) {
                let local = try VaultDatabase.pendingChange(collection, remote.id, source: .local, in: db)
                switch ExamineRules.decide(remote: remote.action, local: local?.action) {
                case .applyRemote:
                    try applyToStable(remote, collection, db)
                    outcome.applied += 1
                case .applyRemoteDropLocal:
                    try applyToStable(remote, collection, db)
                    try VaultDatabase.deletePending(collection, remote.id, source: .local, in: db)
                    outcome.applied += 1
                case .removeBoth:
                    try applyToStable(remote, collection, db)
                    try VaultDatabase.deletePending(collection, remote.id, source: .local, in: db)
                case .keepLocalOverTombstone:
                    // The server has a tombstone: our update goes up as a new record.
                    try StableRecords.delete(collection, remote.id, db: db)
                    try VaultDatabase.deletePending(collection, remote.id, source: .remote, in: db)
                    if var local {
                        local.action = .add
                        local.lastModified = 0
                        try VaultDatabase.savePending(local, in: db)
                    }
                case .conflict:
                    outcome.conflicts += 1
                }
            }
            CrashPoint.reach("sync.examine.\(collection.rawValue).inside")
            return outcome
        }
    }

    private static func applyToStable(_ remote: PendingChange, _ collection: CollectionName, _ db: Database) throws {
        if remote.action == .remove {
            try StableRecords.delete(collection, remote.id, db: db)
        } else {
            try StableRecords.save(remote.record, lastModified: remote.lastModified, in: collection, db: db)
        }
        try VaultDatabase.deletePending(collection, remote.id, source: .remote, in: db)
    }
}
