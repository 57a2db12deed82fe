import CofferCore
import Foundation

/// Step 5, apply: the changes the server accepted move to stable with their new timestamp, and
/// leave `pending` — one transaction. A local edit made while the push was in flight stays
/// pending, now based on the server's new version (`ApplyRules`).
enum ApplyStep {
    static func run(_ acknowledgements: [PushStep.Acknowledgement], _ context: SyncContext) throws {
        guard !acknowledgements.isEmpty else { return }
        try context.database.syncWrite { store in
            for ack in acknowledgements {
                let current = try store.pendingChange(ack.collection, ack.id, source: .local)
                let stableNow = try store.stableStamp(ack.collection, ack.id)?.lastModified
                try ApplyRules.decide(ack, current: current, stableNow: stableNow).execute(ack, in: store)
            }
            CrashPoint.reach("sync.apply.inside")
        }
    }
}
