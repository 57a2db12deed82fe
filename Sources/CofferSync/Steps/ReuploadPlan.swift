import CofferCore

/// After a full listing of a server that lost data: every stable record the server no longer has
/// is queued as a local `add` again (timestamp 0), local changes based on such records become adds
/// too, and a local removal of one is dropped (there is nothing left to remove).
struct ReuploadPlan {
    var collection: CollectionName
    /// Stable rows to forget: the server no longer has them.
    var toForget: [String] = []
    var toQueue: [PendingChange] = []
    var toDrop: [String] = []

    /// What becomes of one record the server lacks.
    enum Decision: Sendable, Equatable {
        /// Goes up again as a new record: the local change made an add, or stable's version.
        case queue(PendingChange)
        /// A local removal of it: nothing is left to remove.
        case dropLocalRemoval
        /// Nothing to send (no local change, no stable text).
        case nothing
    }

    /// The rule, pure: from this device's local change (or stable's text when there is none).
    static func decide(_ id: String, collection: CollectionName, local: PendingChange?, stableText: String?) -> Decision {
        if var local {
            guard local.action != .remove else { return .dropLocalRemoval }
            local.action = .add
            local.lastModified = 0
            return .queue(local)
        }
        guard let stableText else { return .nothing }
        return .queue(PendingChange(collection: collection, id: id, source: .local, action: .add, lastModified: 0,
                                    record: stableText))
    }

    static func read(_ collection: CollectionName, present: Set<String>, from store: SyncStore) throws -> ReuploadPlan {
        var plan = ReuploadPlan(collection: collection)
        for id in try store.stableIDs(collection) where !present.contains(id) {
            let local = try store.pendingChange(collection, id, source: .local)
            let text = local == nil ? try store.stableText(collection, id) : nil
            switch decide(id, collection: collection, local: local, stableText: text) {
            case .queue(let change): plan.toQueue.append(change)
            case .dropLocalRemoval: plan.toDrop.append(id)
            case .nothing: break
            }
            plan.toForget.append(id)
        }
        return plan
    }

    func execute(in store: SyncStore) throws {
        for id in toDrop { try store.deletePending(collection, id, source: .local) }
        for change in toQueue { try store.savePending(change) }
        for id in toForget { try store.deleteStable(collection, id) }
    }
}
