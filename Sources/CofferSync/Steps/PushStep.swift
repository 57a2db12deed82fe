import CofferCore
import Foundation

/// Step 4, push: local changes go to the server in batches, each acknowledged on its own.
///
/// Creates carry `If-None-Match: *`, updates and deletes `If-Match` on the timestamp they are
/// based on. Changes still in conflict are held back. What each change becomes as a request and
/// what each answer means are `PushRules`; this step reads, sends and counts.
enum PushStep {
    /// A change the server accepted, for the apply step.
    struct Acknowledgement: Sendable {
        var collection: CollectionName
        var id: String
        /// The pending record as pushed (apply leaves a newer local edit in place).
        var pushedRecord: String
        /// The server's new timestamp, nil for a deletion.
        var lastModified: Int64?
        /// The server timestamp the pushed change was based on (0: none).
        var base: Int64 = 0
        /// For a sealed removal, the server's timestamp of the removal record it keeps: a newer
        /// edit goes up over it (`ApplyRules`).
        var removalStamp: Int64? = nil
    }

    struct Outcome {
        var acknowledgements: [Acknowledgement] = []
        var rejected = 0
        var unknown = 0
        /// Item changes held back while a keystore under another passphrase waits (`PushRules.holdsItems`).
        var held = 0
    }

    private static func keystore(_ source: PendingChange.Source, in store: SyncStore) throws -> KeystoreRecord? {
        try store.pendingChange(.keystores, CollectionName.keystoreID, source: source)
            .flatMap { try? RecordCoding.decode(KeystoreRecord.self, from: $0.record) }
    }

    private static func stableKeystore(in store: SyncStore) throws -> KeystoreRecord? {
        try store.stableText(.keystores, CollectionName.keystoreID).flatMap { try? RecordCoding.decode(KeystoreRecord.self, from: $0) }
    }

    static func run(_ collection: CollectionName, _ context: SyncContext) async throws -> Outcome {
        let personal = context.vault.sharedVaultID == nil
        var outcome = Outcome()
        let changes = try context.database.syncRead { store -> [PendingChange] in
            let conflicted = Set(try store.pendingChanges(collection, source: .remote).map(\.id))
            let changes = try store.pendingChanges(collection, source: .local).filter { !conflicted.contains($0.id) }
            // Ours is read (the ring of 100,000 keys is megabytes of JSON) only when one waits.
            if collection == .items, personal, !changes.isEmpty, let waiting = try keystore(.remote, in: store),
               PushRules.holdsItems(personal: personal, waiting: waiting,
                                    current: try keystore(.local, in: store) ?? stableKeystore(in: store)) {
                context.logger.info("push items: \(changes.count) held until the server's keystore, under another passphrase, is merged at an unlock")
                outcome.held = changes.count
                return []
            }
            return changes
        }
        var requests: [KintoWriteRequest] = []
        var sent: [PendingChange] = []
        for change in changes {
            switch PushRules.send(change, in: collection) {
            case .nothing:
                outcome.acknowledgements.append(Acknowledgement(collection: collection, id: change.id,
                                                                pushedRecord: change.record, lastModified: nil, base: 0))
            case .request(let request):
                requests.append(request)
                sent.append(change)
            }
        }
        guard !requests.isEmpty else { return outcome }
        context.progress(SyncProgress(step: .push, collection: collection.rawValue, done: 0, total: requests.count))
        let results = try await context.client.batch(requests)
        CrashPoint.reach("sync.push.\(collection.rawValue).after-send")
        for (change, result) in zip(sent, results) {
            switch PushRules.answer(result, to: change.action) {
            case .acknowledged(let lastModified):
                var acknowledgement = Acknowledgement(collection: collection, id: change.id, pushedRecord: change.record,
                                                      lastModified: lastModified, base: change.lastModified)
                if change.action == .remove, case .accepted(_, let stamp) = result, stamp > 0 { acknowledgement.removalStamp = stamp }
                outcome.acknowledgements.append(acknowledgement)
            case .rejected(let reason):
                if let reason { context.logger.warning("push \(collection.rawValue) \(change.id): \(reason)") }
                outcome.rejected += 1
            case .unknown:
                outcome.unknown += 1
            }
        }
        context.progress(SyncProgress(step: .push, collection: collection.rawValue, done: requests.count, total: requests.count))
        context.logger.info("push \(collection.rawValue): \(outcome.acknowledgements.count) accepted, \(outcome.rejected) rejected, \(outcome.unknown) unknown")
        return outcome
    }
}
