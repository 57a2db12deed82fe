import GRDB

/// What reconcile writes for the items changed on both sides, as plain lists.
struct ReconcilePlan {
    /// Server versions that become stable.
    var toStable: [ItemRecord] = []
    /// Local changes to write (merges, or ours over an unreadable server copy), based on the server's version.
    var toQueue: [ItemRecord] = []
    /// Local rows to drop (the server already holds our change).
    var toDropLocal: [String] = []
    /// Remote rows to drop: every id the plan handles.
    var toDropRemote: [String] = []
    /// Reviews (⚑) of the merges, sealed: (id, base64 envelope).
    var reviews: [(id: String, sealed: String)] = []
    /// Ids merged (with a review).
    var merged: [String] = []

    mutating func take(_ outcome: ReconcileOutcome) {
        switch outcome {
        case .wait:
            break
        case .acceptRemote(let remote):
            // The server's version stands as it is: it already holds our change.
            toStable.append(remote)
            toDropLocal.append(remote.id)
            toDropRemote.append(remote.id)
        case .replace(let remote, let ours):
            replace(remote, with: ours)
        case .merge(let remote, let ours, let review, let sealedReview):
            replace(remote, with: ours)
            if let sealedReview { reviews.append((review.id, sealedReview)) }
            merged.append(ours.id)
        }
    }

    /// The server's version becomes stable and `ours` (sealed on top of it) the local change.
    private mutating func replace(_ remote: ItemRecord, with ours: ItemRecord) {
        toStable.append(remote)
        toQueue.append(ours)
        toDropRemote.append(remote.id)
    }

    func execute(in db: Database, now: Timestamp) throws {
        for record in toStable { try VaultDatabase.saveStableItem(record, in: db) }
        for record in toQueue {
            try VaultDatabase.savePending(PendingChange(collection: .items, id: record.id, source: .local, action: .update,
                                                        lastModified: record.lastModified,
                                                        record: try RecordCoding.encode(record)), in: db)
        }
        for id in toDropLocal { try VaultDatabase.deletePending(.items, id, source: .local, in: db) }
        for id in toDropRemote { try VaultDatabase.deletePending(.items, id, source: .remote, in: db) }
        for review in reviews { try VaultDatabase.saveReview(id: review.id, sealed: review.sealed, now: now, in: db) }
    }
}
