import CofferCore

/// What apply does with one acknowledgement: what stable becomes, and what becomes of the
/// local change (the one pushed, or a newer edit made meanwhile).
struct ApplyDecision: Sendable, Equatable {
    enum Stable: Sendable, Equatable {
        /// The pushed record, with the server's timestamp.
        case save(lastModified: Int64)
        /// A removal the server accepted.
        case delete
        /// An accepted write without a timestamp: unsafe to make stable; the next fetch brings it.
        case leave
    }

    enum Local: Sendable, Equatable {
        /// It was exactly what was pushed: done.
        case drop
        /// A newer edit: it stays, now based on the server's new version.
        case rebase(PendingChange)
        /// Nothing pending, or nothing to change about it.
        case keep
    }

    var stable: Stable
    var local: Local

    func execute(_ ack: PushStep.Acknowledgement, in store: SyncStore) throws {
        switch stable {
        case .save(let stamp): try store.saveStable(text: ack.pushedRecord, lastModified: stamp, in: ack.collection)
        case .delete: try store.deleteStable(ack.collection, ack.id)
        case .leave: break
        }
        switch local {
        case .drop: try store.deletePending(ack.collection, ack.id, source: .local)
        case .rebase(let change): try store.savePending(change)
        case .keep: break
        }
    }
}

/// The apply rules: pure, from an acknowledgement, the local change pending now and the server
/// timestamp of the version stable holds now.
enum ApplyRules {
    static func decide(_ ack: PushStep.Acknowledgement, current: PendingChange?, stableNow: Int64? = nil) -> ApplyDecision {
        // Another sync of this vault (an agent's timer beside `coffer sync`) fetched a newer
        // version while this push was answered: stable already holds what came after ours, which
        // the marker has passed. Writing ours over it would lose that version on this device.
        if isOvertaken(ack, stableNow: stableNow) {
            return ApplyDecision(stable: .leave, local: current?.record == ack.pushedRecord ? .drop : .keep)
        }
        let stable: ApplyDecision.Stable
        if let stamp = ack.lastModified {
            guard stamp > 0 else { return ApplyDecision(stable: .leave, local: .keep) }
            stable = .save(lastModified: stamp)
        } else {
            stable = .delete
        }
        guard var current else {
            // Neither stable nor pending holds an item whose write the server just accepted: it
            // was removed here meanwhile (another process's sync sent its removal, or fetched its
            // removal elsewhere). The server has it again: the removal goes up once more, based
            // on it (a 404 or 412 then settles it), instead of the item coming back here.
            if ack.collection == .items, stableNow == nil, let stamp = ack.lastModified {
                return ApplyDecision(stable: .leave, local: .rebase(.itemRemoval(id: ack.id, basedOn: stamp)))
            }
            return ApplyDecision(stable: stable, local: .keep)
        }
        if current.record == ack.pushedRecord { return ApplyDecision(stable: stable, local: .drop) }
        if let stamp = ack.lastModified {
            current.lastModified = stamp
            if current.action == .add { current.action = .update }
            return ApplyDecision(stable: stable, local: .rebase(current))
        }
        guard current.action != .remove else { return ApplyDecision(stable: stable, local: .keep) }
        // The server removed it (our push was a removal): the newer edit goes up over the sealed
        // removal the server keeps, or as a new record where the removal was a plain `DELETE`.
        current.lastModified = ack.removalStamp ?? 0
        current.action = ack.removalStamp == nil ? .add : .update
        return ApplyDecision(stable: stable, local: .rebase(current))
    }

    /// Whether stable moved past the acknowledged version: newer than the accepted write, or,
    /// for a removal, a version that came after the one removed (re-created since).
    static func isOvertaken(_ ack: PushStep.Acknowledgement, stableNow: Int64?) -> Bool {
        guard let stableNow else { return false }
        if let stamp = ack.lastModified { return stamp > 0 && stableNow > stamp }
        return ack.base > 0 && stableNow > ack.base
    }
}
