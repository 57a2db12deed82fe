import CofferCore
import Foundation

/// The end of a revocation whose item records this device's new keys rewrite (architecture §17):
/// every record a shared vault sends goes up with its own `write` cleared (`KintoBatchCoding`),
/// so the push of the items sealed again took the removed person's `write` off each of them.
/// This step, after that push, clears it off the item records the push did not send (items this
/// device could not open, edits that met a conflict) and marks the removal rewritten
/// (`SharedRoster.markRewritten`), so the members who see it later rewrite nothing.
enum AuthorPermissionStep {
    /// `acknowledged`: what this sync's push made stable.
    static func run(after acknowledged: [PushStep.Acknowledgement], _ context: SyncContext) async throws {
        let database = context.database
        guard let text = try database.meta(.shareRewrite), let removal = Int(text) else { return }
        // Until the new keys are made (at the unlock that takes the new epoch's key) nothing is
        // sealed again: rewriting now would send every record's permissions twice.
        guard try database.meta(.shareRekey) == nil else { return }
        let items = CollectionName.items
        let sent = Set(acknowledged.filter { $0.collection == items && $0.lastModified != nil }.map(\.id))
        let left = try await context.client.recordIDs(collection: items.rawValue).filter { !sent.contains($0) }
        let refused = try await context.client.clearPermissions(collection: items.rawValue, ids: left)
        guard refused.isEmpty else {
            context.logger.warning("revocation: \(refused.count) item record(s) kept their authors' permissions; the next sync tries again")
            return
        }
        try await SharedRoster.markRewritten(after: removal, with: context.client)
        try database.setMeta(.shareRewrite, nil)
        context.logger.info("revocation: \(sent.count) item record(s) rewritten with their new keys, \(left.count) more on their own")
    }
}
