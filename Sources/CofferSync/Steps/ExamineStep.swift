import CofferCore
import Foundation

/// Step 2, examine: each remote change meets this device's local change of the same id (if any)
/// and gets `ExamineRules`' decision; the decisions make an `ExaminePlan`, written in the
/// transaction that read the rows. True conflicts stay in `pending` for reconcile.
enum ExamineStep {
    struct Outcome {
        var applied = 0
        var conflicts = 0
        /// Local updates that go up over a tombstone, each with the lowest revision that counts
        /// as newer than the version the tombstone removed (`Vault.floorRevisions`).
        var recreated: [String: UInt64] = [:]
    }

    static func run(_ collection: CollectionName, _ context: SyncContext) throws -> Outcome {
        try context.database.syncWrite { store in
            var plan = ExaminePlan(collection: collection)
            let holds = context.holdsUntilAuthenticated(collection)
            for remote in try store.pendingChanges(collection, source: .remote) {
                let local = try store.pendingChange(collection, remote.id, source: .local)
                // A removal of an item this device holds is authenticated first (`Vault.authenticateRemovals`).
                let waits = holds || (collection == .items && remote.action == .remove)
                let hasStable = waits ? try store.stableStamp(collection, remote.id) != nil : false
                plan.add(ExamineRules.decide(remote: remote.action, local: local?.action, holdsUntilAuthenticated: hasStable),
                         remote: remote, local: local)
            }
            try plan.execute(in: store)
            CrashPoint.reach("sync.examine.\(collection.rawValue).inside")
            // Every version removed was pushed before the fetch that brought its tombstone: the
            // server time of that fetch (its ETag) bounds them all, whatever their makers' clocks.
            let fetched = try store.marker(collection).flatMap { Int64($0) } ?? 0
            return Outcome(applied: plan.applied, conflicts: plan.conflicts,
                           recreated: plan.recreated.mapValues { UInt64(max(fetched, $0, 0)) + 1 })
        }
    }
}
