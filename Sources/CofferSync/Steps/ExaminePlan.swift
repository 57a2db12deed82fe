import CofferCore

/// What examine writes, as plain lists.
struct ExaminePlan {
    var collection: CollectionName
    /// Remote changes that become stable (a removal deletes the stable row).
    var toStable: [PendingChange] = []
    /// Stable rows to forget: the server holds a tombstone our local update goes up over.
    var toForget: [String] = []
    /// Pending rows to drop, by id and source.
    var toDrop: [(id: String, source: PendingChange.Source)] = []
    /// Local changes rewritten (an update over a tombstone becomes an add).
    var toRequeue: [PendingChange] = []
    /// The local updates that go up over a tombstone, with the tombstone's server time.
    var recreated: [String: Int64] = [:]
    var applied = 0
    var conflicts = 0

    mutating func add(_ decision: ExamineDecision, remote: PendingChange, local: PendingChange?) {
        switch decision {
        case .applyRemote:
            apply(remote)
            applied += 1
        case .awaitAuthentication:
            break
        case .applyRemoteDropLocal:
            apply(remote)
            toDrop.append((remote.id, .local))
            applied += 1
        case .removeBoth:
            apply(remote)
            toDrop.append((remote.id, .local))
        case .keepLocalOverTombstone:
            // The server has a removal: our update goes up over it — as a new record over a plain
            // tombstone, as an update of a sealed removal (a record the server still holds).
            toForget.append(remote.id)
            toDrop.append((remote.id, .remote))
            if var local {
                let sealed = remote.isSealedItemRemoval
                local.action = sealed ? .update : .add
                local.lastModified = sealed ? remote.lastModified : 0
                toRequeue.append(local)
                recreated[remote.id] = remote.lastModified
            }
        case .conflict:
            conflicts += 1
        }
    }

    private mutating func apply(_ remote: PendingChange) {
        toStable.append(remote)
        toDrop.append((remote.id, .remote))
    }

    func execute(in store: SyncStore) throws {
        for remote in toStable {
            if remote.action == .remove {
                try store.deleteStable(collection, remote.id)
            } else {
                try store.saveStable(text: remote.record, lastModified: remote.lastModified, in: collection)
            }
        }
        for id in toForget { try store.deleteStable(collection, id) }
        for (id, source) in toDrop { try store.deletePending(collection, id, source: source) }
        for change in toRequeue { try store.savePending(change) }
    }
}
