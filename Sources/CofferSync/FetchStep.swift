import CofferCore
import Foundation
import GRDB

/// Step 1, fetch: the collection's changes since the marker go into `pending` as remote changes,
/// and the new ETag becomes the marker — one transaction. A change with no local counterpart goes
/// straight to stable (what examine would do with it), which keeps a first download to one write
/// per record.
///
/// Our own echo (a record exactly as we last pushed it) is dropped. A record that matches a local
/// change we sent but never saw acknowledged (the batch's outcome was unknown) acknowledges it.
/// A server that lost data (its ETag went behind our marker, or it changed without any newer
/// record) triggers a full listing, and what the server no longer has is queued for upload again.
/// A record older than the version we hold (a lower lineage revision: the server rolled back or
/// replays it) never replaces ours: it becomes a conflict with our version, merged on unlock.
enum FetchStep {
    struct Outcome {
        var received = 0
        var fullResync = false
        /// Records refused as older than ours (rollbacks or replays).
        var rolledBack = 0
    }

    static func run(_ collection: CollectionName, _ context: SyncContext) async throws -> Outcome {
        let marker = try context.database.read { try Markers.get(collection, in: $0) }
        let changes = try await context.client.fetchChanges(collection: collection, since: marker)
        guard case .changes(let records, let etag) = changes else {
            context.logger.debug("fetch \(collection.rawValue): not modified")
            return Outcome()
        }
        if let marker, let markerValue = Int64(marker), let etagValue = Int64(etag),
           etagValue < markerValue || (records.isEmpty && etagValue != markerValue) {
            context.logger.warning("fetch \(collection.rawValue): the server lost data (marker \(marker), ETag \(etag)); full re-sync")
            return try await resynchronize(collection, context)
        }
        var outcome = Outcome()
        try store(records, etag: etag, collection, context, serverHasEverything: false, into: &outcome)
        context.progress(SyncProgress(step: .fetch, collection: collection.rawValue, done: outcome.received,
                                      total: outcome.received))
        return outcome
    }

    /// Lists the whole collection and compares: what the server lacks goes up again.
    private static func resynchronize(_ collection: CollectionName, _ context: SyncContext) async throws -> Outcome {
        guard case .changes(let records, let etag) = try await context.client.fetchChanges(collection: collection, since: nil)
        else { return Outcome(fullResync: true) }
        var outcome = Outcome(fullResync: true)
        try store(records, etag: etag, collection, context, serverHasEverything: true, into: &outcome)
        return outcome
    }

    private static func store(_ records: [Data], etag: String, _ collection: CollectionName, _ context: SyncContext,
                              serverHasEverything: Bool, into outcome: inout Outcome) throws {
        // Decode and check everything before writing anything: a refused record stores nothing.
        let incoming = try records.map { try StableRecords.incoming($0, in: collection) }
        outcome = try context.database.write { [outcome] db in
            var outcome = outcome
            for record in incoming {
                let header = record.header
                let stable = try StableRecords.stamp(collection, header.id, in: db)
                // Our own write coming back: stable already holds exactly this version.
                if let stable, stable.lastModified == header.lastModified { continue }
                let local = try VaultDatabase.pendingChange(collection, header.id, source: .local, in: db)
                if let local, !header.isDeleted,
                   try StableRecords.incoming(Data(local.record.utf8), in: collection).content() == record.content() {
                    // A write whose acknowledgement we never got: the server has it, so it is stable now.
                    try record.saveAsStable(in: db)
                    try VaultDatabase.deletePending(collection, header.id, source: .local, in: db)
                    try VaultDatabase.deletePending(collection, header.id, source: .remote, in: db)
                    continue
                }
                var hasLocal = local != nil
                if let stable, !header.isDeleted, let theirs = header.revision, let ours = stable.revision, theirs < ours {
                    context.logger.warning("fetch \(collection.rawValue) \(header.id): revision \(theirs) is older than ours (\(ours)); kept as a conflict")
                    outcome.rolledBack += 1
                    if !hasLocal, let ours = try StableRecords.stableText(collection, header.id, in: db) {
                        // Our version stands against it as a local change: reconcile merges the two
                        // without a common base, so nothing either side has is lost.
                        try VaultDatabase.savePending(PendingChange(collection: collection, id: header.id, source: .local,
                                                                    action: .update, lastModified: stable.lastModified,
                                                                    record: ours), in: db)
                        hasLocal = true
                    }
                }
                if header.isDeleted && stable == nil && !hasLocal {
                    continue // A tombstone of something we never had.
                }
                if !hasLocal {
                    // Nothing local to weigh it against: examine would apply it as it is
                    // (`ExamineRules`), so it becomes stable now, in this same transaction.
                    try record.saveAsStable(in: db)
                    try VaultDatabase.deletePending(collection, header.id, source: .remote, in: db)
                    outcome.received += 1
                    continue
                }
                let action: PendingChange.Action = header.isDeleted ? .remove : (stable == nil ? .add : .update)
                try VaultDatabase.savePending(
                    PendingChange(collection: collection, id: header.id, source: .remote, action: action,
                                  lastModified: header.lastModified, record: try record.canonicalText()), in: db)
                outcome.received += 1
            }
            if serverHasEverything {
                try queueReupload(collection, present: Set(incoming.filter { !$0.header.isDeleted }.map(\.header.id)), db: db)
            }
            CrashPoint.reach("sync.fetch.\(collection.rawValue).inside")
            try Markers.set(collection, etag, in: db)
            return outcome
        }
    }

    /// Every stable record the server no longer has becomes a local `add` again (with timestamp 0),
    /// and local changes based on such records become adds too.
    private static func queueReupload(_ collection: CollectionName, present: Set<String>, db: Database) throws {
        for id in try StableRecords.stableIDs(collection, in: db) where !present.contains(id) {
            if var local = try VaultDatabase.pendingChange(collection, id, source: .local, in: db) {
                if local.action == .remove {
                    try VaultDatabase.deletePending(collection, id, source: .local, in: db)
                } else {
                    local.action = .add
                    local.lastModified = 0
                    try VaultDatabase.savePending(local, in: db)
                }
            } else if let text = try StableRecords.stableText(collection, id, in: db) {
                try VaultDatabase.savePending(PendingChange(collection: collection, id: id, source: .local, action: .add,
                                                            lastModified: 0, record: text), in: db)
            }
            try StableRecords.delete(collection, id, db: db)
        }
    }
}
