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
    var reviews: [ItemReview] = []
    /// Ids merged (with a review).
    var merged: [String] = []

    /// The server's version stands as it is: it already holds our change.
    mutating func acceptRemote(_ remote: ItemRecord) {
        toStable.append(remote)
        toDropLocal.append(remote.id)
        toDropRemote.append(remote.id)
    }

    /// The server's version becomes stable and `ours` (sealed on top of it) the local change.
    mutating func replace(_ remote: ItemRecord, with ours: ItemRecord, review: ItemReview? = nil) throws {
        toStable.append(remote)
        toQueue.append(ours)
        toDropRemote.append(remote.id)
        if let review {
            reviews.append(review)
            merged.append(ours.id)
        }
    }

    func execute(in db: Database, saveReview: (ItemReview) throws -> Void) throws {
        for record in toStable { try VaultDatabase.saveStableItem(record, in: db) }
        for record in toQueue {
            try VaultDatabase.savePending(PendingChange(collection: .items, id: record.id, source: .local, action: .update,
                                                        lastModified: record.lastModified,
                                                        record: try RecordCoding.encode(record)), in: db)
        }
        for id in toDropLocal { try VaultDatabase.deletePending(.items, id, source: .local, in: db) }
        for id in toDropRemote { try VaultDatabase.deletePending(.items, id, source: .remote, in: db) }
        for review in reviews { try saveReview(review) }
    }
}
