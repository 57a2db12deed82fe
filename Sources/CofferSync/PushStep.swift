import CofferCore
import Foundation

/// Step 4, push: local changes go to the server in batches, each acknowledged on its own.
///
/// Creates carry `If-None-Match: *`, updates and deletes `If-Match` on the timestamp they are
/// based on. Changes still in conflict are held back. A 412 leaves the change pending (the next
/// fetch brings the newer version to merge with); an unknown outcome (409/5xx in a batch) too.
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
    }

    struct Outcome {
        var acknowledgements: [Acknowledgement] = []
        var rejected = 0
        var unknown = 0
    }

    static func run(_ collection: CollectionName, _ context: SyncContext) async throws -> Outcome {
        let changes = try context.database.syncRead { store -> [PendingChange] in
            let conflicted = Set(try store.pendingChanges(collection, source: .remote).map(\.id))
            return try store.pendingChanges(collection, source: .local).filter { !conflicted.contains($0.id) }
        }
        var outcome = Outcome()
        var requests: [KintoWriteRequest] = []
        var sent: [PendingChange] = []
        for change in changes {
            switch change.action {
            case .remove where change.lastModified == 0:
                // Never reached the server: nothing to delete there.
                outcome.acknowledgements.append(Acknowledgement(collection: collection, id: change.id,
                                                                pushedRecord: change.record, lastModified: nil, base: 0))
                continue
            case .remove:
                requests.append(.delete(collection: collection, id: change.id, lastModified: change.lastModified))
            case .add:
                requests.append(.create(collection: collection, id: change.id, record: Data(change.record.utf8)))
            case .update where change.lastModified == 0:
                // Based on nothing the server has (it lost the record): created again.
                requests.append(.create(collection: collection, id: change.id, record: Data(change.record.utf8)))
            case .update:
                requests.append(.update(collection: collection, id: change.id, record: Data(change.record.utf8),
                                        lastModified: change.lastModified))
            }
            sent.append(change)
        }
        guard !requests.isEmpty else { return outcome }
        context.progress(SyncProgress(step: .push, collection: collection.rawValue, done: 0, total: requests.count))
        let results = try await context.client.batch(requests)
        CrashPoint.reach("sync.push.\(collection.rawValue).after-send")
        for (change, result) in zip(sent, results) {
            switch result {
            case .accepted(_, let serverStamp):
                outcome.acknowledgements.append(Acknowledgement(
                    collection: collection, id: change.id, pushedRecord: change.record,
                    lastModified: change.action == .remove ? nil : serverStamp, base: change.lastModified))
            case .failed(404, _) where change.action == .remove, .preconditionFailed(existing: nil) where change.action == .remove:
                // Already gone on the server (a 412 without the current record: only a tombstone
                // is left, which a fetch may have brought already): the removal holds.
                outcome.acknowledgements.append(Acknowledgement(collection: collection, id: change.id,
                                                                pushedRecord: change.record, lastModified: nil,
                                                                base: change.lastModified))
            case .preconditionFailed:
                outcome.rejected += 1
            case .failed(let status, let message):
                context.logger.warning("push \(collection.rawValue) \(change.id): \(status) \(message)")
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
