import CofferCore
import Foundation

/// Step 1, fetch: the collection's changes since the marker go into `pending` as remote changes,
/// and the new ETag becomes the marker — one transaction. A change with no local counterpart goes
/// straight to stable (what examine would do with it), which keeps a first download to one write
/// per record. Each record gets one named decision (`FetchRules`); the decisions make a plan
/// (`FetchPlan`), written in the transaction that read what they were based on.
///
/// A server that lost data (its ETag went behind our marker, or it changed without any newer
/// record) triggers a full listing, and what the server no longer has is queued for upload again
/// (`ReuploadPlan`).
enum FetchStep {
    struct Outcome {
        var received = 0
        var fullResync = false
        /// Records refused as older than ours (rollbacks or replays).
        var rolledBack = 0
        /// A shared vault's item versions no current member signed (`SignatureGate`).
        var refused = 0
    }

    static func run(_ collection: CollectionName, _ context: SyncContext) async throws -> Outcome {
        let marker = try context.database.syncRead { try $0.marker(collection) }
        let changes = try await context.client.fetchChanges(collection: collection, since: marker)
        guard case .changes(let records, let etag) = changes else {
            context.logger.debug("fetch \(collection.rawValue): not modified")
            return Outcome()
        }
        if let marker, let markerValue = Int64(marker), let etagValue = Int64(etag),
           etagValue < markerValue || (records.isEmpty && etagValue != markerValue) {
            context.logger.warning("fetch \(collection.rawValue): the server lost data (marker \(marker), ETag \(etag)); full re-sync")
            return try await resynchronize(collection, context, fetchedSince: marker)
        }
        let outcome = try await store(records, etag: etag, collection, context, fetchedSince: marker, serverHasEverything: false)
        context.progress(SyncProgress(step: .fetch, collection: collection.rawValue, done: outcome.received,
                                      total: outcome.received))
        return outcome
    }

    /// Lists the whole collection and compares: what the server lacks goes up again.
    private static func resynchronize(_ collection: CollectionName, _ context: SyncContext,
                                      fetchedSince marker: String?) async throws -> Outcome {
        guard case .changes(let records, let etag) = try await context.client.fetchChanges(collection: collection, since: nil)
        else { return Outcome(fullResync: true) }
        var outcome = try await store(records, etag: etag, collection, context, fetchedSince: marker, serverHasEverything: true)
        outcome.fullResync = true
        return outcome
    }

    /// Read → decide → plan → execute, in one transaction. `marker` is the one the records were
    /// fetched since.
    static func store(_ records: [Data], etag: String, _ collection: CollectionName, _ context: SyncContext,
                      fetchedSince marker: String?, serverHasEverything: Bool) async throws -> Outcome {
        // Decode and check everything before writing anything: a refused record stores nothing.
        let incoming = try records.map { try IncomingRecord.decode($0, in: collection) }
        let gate = collection == .items ? try await SignatureGate.current(for: incoming, context) : nil
        return try context.database.syncWrite { store in
            // Another sync of this vault (an agent's timer beside a `coffer sync`) stored a fetch
            // while this one was on the network: that page is newer than ours, and ours would
            // bring back what it saw deleted and move the marker back. Ours is dropped; the next
            // sync fetches from the newer marker.
            guard try store.marker(collection) == marker else {
                context.logger.info("fetch \(collection.rawValue): another sync stored newer changes meanwhile; this page is dropped")
                return Outcome()
            }
            // A first download: every record meets nothing, so its facts need no lookups and the
            // plan no deletes (three statements per record, a third of a `join`'s storing).
            let blank = try store.holdsNothing(collection)
            var plan = FetchPlan(collection: collection, marker: etag, pendingIsEmpty: blank)
            plan.mirrorsReplacedItems = context.mirrorsReplacedItems
            plan.mirrorsReplacedKeystores = context.mirrorsReplacedKeystores
            for var record in incoming {
                if let gate {
                    switch try gate.judge(record, firstDownload: blank, stable: { try store.stableItem(record.header.id) }) {
                    case .accept(let judged):
                        record = judged
                    case .refuse:
                        context.logger.warning("fetch items \(record.header.id): no current member signed this version; refused, ours goes back")
                        plan.refuse(putBack: try SignatureGate.putBack(record.header, in: store))
                        continue
                    }
                }
                var facts = blank ? FetchFacts(header: record.header, stable: nil, local: .none)
                    : try facts(of: record, collection, in: store)
                // Stable's own bytes under a new timestamp (a revocation rewrites every record's
                // permissions, which Kinto stamps anew) need no authenticating: they are ours.
                facts.holdsUntilAuthenticated = try context.holdsUntilAuthenticated(collection)
                    && !isStableVersion(record, collection, in: store)
                facts.judgesRemovals = collection == .items
                let decision = FetchRules.decide(facts)
                if FetchRules.isOlderThanStable(facts) {
                    context.logger.warning("fetch \(collection.rawValue) \(record.header.id): revision \(record.header.revision ?? 0) is older than ours (\(facts.stable?.revision ?? 0)); kept as a conflict")
                }
                try plan.add(decision, for: record, facts: facts) { try store.stableText(collection, record.header.id) }
            }
            try plan.execute(in: store)
            if serverHasEverything {
                // A sealed removal is a record the server holds: what it removes is not re-sent.
                let present = Set(incoming.filter { !$0.header.isDeleted || $0.header.isSealedRemoval }.map(\.header.id))
                try ReuploadPlan.read(collection, present: present, from: store).execute(in: store)
            }
            // Items that arrived may name files: the attachment chunks are listed (AttachmentStep)
            // until a listing completes, in this transaction so a crash cannot forget it.
            if collection == .items, plan.received > 0 { try store.setMeta([.attachmentsToFetch: "1"]) }
            CrashPoint.reach("sync.fetch.\(collection.rawValue).inside")
            return Outcome(received: plan.received, rolledBack: plan.rolledBack, refused: plan.refused)
        }
    }

    /// Whether `record` is the version stable holds, whatever its timestamp.
    private static func isStableVersion(_ record: IncomingRecord, _ collection: CollectionName, in store: SyncStore) throws -> Bool {
        guard !record.header.isDeleted, let text = try store.stableText(collection, record.header.id) else { return false }
        return try IncomingRecord.decode(Data(text.utf8), in: collection).value.content() == record.value.content()
    }

    /// What the vault holds of `record`: its stable stamp and how a local change compares.
    private static func facts(of record: IncomingRecord, _ collection: CollectionName, in store: SyncStore) throws -> FetchFacts {
        let header = record.header
        let stable = try store.stableStamp(collection, header.id)
        var local = FetchFacts.Local.none
        // Echoes need nothing more: stable already is this version.
        if stable?.lastModified != header.lastModified,
           let change = try store.pendingChange(collection, header.id, source: .local) {
            if stable == nil, change.action == .remove, change.lastModified == 0 {
                return FetchFacts(header: header, stable: nil, local: .removalOfUnconfirmed, unconfirmedRemoval: change)
            }
            let content = header.isDeleted ? nil : try record.value.content()
            let same = try content != nil && IncomingRecord.decode(Data(change.record.utf8), in: collection).value.content() == content
            local = same ? .sameContent : .different
            if !same, content != nil, stable != nil, let stableText = try store.stableText(collection, header.id),
               try IncomingRecord.decode(Data(stableText.utf8), in: collection).value.content() == content {
                return FetchFacts(header: header, stable: stable, local: local, restampedLocal: change)
            }
        }
        return FetchFacts(header: header, stable: stable, local: local)
    }
}
