import CofferCore
import Foundation

/// Step 2, examine: each remote change meets this device's local change of the same id (if any)
/// and gets `ExamineRules`' decision; the decisions make an `ExaminePlan`, written in the
/// transaction that read the rows. True conflicts stay in `pending` for reconcile.
enum ExamineStep {
    struct Outcome {
        var applied = 0
        var conflicts = 0
    }

    static func run(_ collection: CollectionName, _ context: SyncContext) throws -> Outcome {
        try context.database.syncWrite { store in
            var plan = ExaminePlan(collection: collection)
            for remote in try store.pendingChanges(collection, source: .remote) {
                let local = try store.pendingChange(collection, remote.id, source: .local)
                plan.add(ExamineRules.decide(remote: remote.action, local: local?.action), remote: remote, local: local)
            }
            try plan.execute(in: store)
            CrashPoint.reach("sync.examine.\(collection.rawValue).inside")
            return Outcome(applied: plan.applied, conflicts: plan.conflicts)
        }
    }
}
