import Foundation
import GRDB

/// What reconcile writes for the items changed on both sides, as plain lists. Pending rows are
/// named by their `key` (rowid), read in the same transaction (`ReconcilePair.Rows`).
struct ReconcilePlan {
    /// Server versions that become stable.
    var toStable: [ItemRecord] = []
    /// Local changes to write over this device's pending row (merges, or ours over an
    /// unreadable server copy), based on the server's version; `setsAction` when that row's
    /// action is not `update` yet.
    var toQueue: [(row: Int64, setsAction: Bool, change: PendingChange)] = []
    /// Local rows to drop (the server already holds our change).
    var toDropLocal: [Int64] = []
    /// Remote rows to drop: one for every pair the plan handles.
    var toDropRemote: [Int64] = []
    /// Reviews (⚑) of the merges, sealed: (id, base64 envelope).
    var reviews: [(id: String, sealed: String)] = []
    /// Ids merged (with a review).
    var merged: [String] = []

    mutating func take(_ outcome: ReconcileOutcome, of rows: ReconcilePair.Rows) {
        switch outcome {
        case .wait:
            break
        case .acceptRemote(let remote):
            // The server's version stands as it is: it already holds our change.
            toStable.append(remote)
            toDropLocal.append(rows.local)
            toDropRemote.append(rows.remote)
        case .replace(let remote, let ours):
            replace(remote, with: ours, rows: rows)
        case .merge(let remote, let ours, let review, let sealedReview):
            replace(remote, with: ours, rows: rows)
            if let sealedReview { reviews.append((review.id, sealedReview)) }
            merged.append(ours.id)
        }
    }

    /// The server's version becomes stable and `ours` (sealed on top of it) the local change.
    private mutating func replace(_ remote: ItemRecord, with ours: PendingChange, rows: ReconcilePair.Rows) {
        toStable.append(remote)
        toQueue.append((rows.local, rows.localAction != ours.action, ours))
        toDropRemote.append(rows.remote)
    }

    /// Writes the plan. Rows by rowid, and each statement touches only the columns that change:
    /// an index whose column is in an UPDATE's SET is rewritten even when the value is the same
    /// (`pending_by_action`, a third of this step), and INSERT OR REPLACE deletes and re-inserts.
    func execute(in db: Database, now: Timestamp) throws {
        let saveStable = try db.cachedStatement(sql: """
            INSERT INTO items (id, last_modified, active, origins, tags, encrypted, signature) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET last_modified = excluded.last_modified, active = excluded.active,
                origins = excluded.origins, tags = excluded.tags, encrypted = excluded.encrypted,
                signature = excluded.signature
            """)
        for record in toStable {
            if record.isDeleted {
                try VaultDatabase.saveStableItem(record, in: db)
                continue
            }
            try saveStable.execute(arguments: [record.id, record.lastModified, record.isActive ? 1 : 0,
                                               record.originHashes.joined(separator: " "),
                                               record.tagHashes.joined(separator: " "), record.encrypted,
                                               record.signature])
        }
        let queue = try db.cachedStatement(sql: "UPDATE pending SET last_modified = ?, record = ? WHERE key = ?")
        let setAction = try db.cachedStatement(sql: "UPDATE pending SET action = ? WHERE key = ?")
        for (row, setsAction, change) in toQueue {
            try queue.execute(arguments: [change.lastModified, change.record, row])
            if setsAction { try setAction.execute(arguments: [change.action.rawValue, row]) }
        }
        let drop = try db.cachedStatement(sql: "DELETE FROM pending WHERE key = ?")
        for row in toDropLocal + toDropRemote { try drop.execute(arguments: [row]) }
        for review in reviews { try VaultDatabase.saveReview(id: review.id, sealed: review.sealed, now: now, in: db) }
    }
}
