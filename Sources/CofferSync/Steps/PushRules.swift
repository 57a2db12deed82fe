import CofferCore
import Foundation

/// The push rules: pure, from a pending change to the request it becomes, and from the server's
/// answer to what becomes of the change.
enum PushRules {
    /// What to send for a change.
    enum Send: Sendable, Equatable {
        /// A removal of a record the server never had: acknowledged without a request.
        case nothing
        case request(KintoWriteRequest)
    }

    /// What an answer means for the change that was sent.
    enum Answer: Sendable, Equatable {
        /// Done: apply makes it stable (`lastModified` nil for a removal).
        case acknowledged(lastModified: Int64?)
        /// Refused on a stale base (the next fetch brings the newer version to merge with) or for
        /// another reason logged with `reason`: the change stays pending.
        case rejected(reason: String?)
        /// A 409 or 5xx inside the batch: the write may or may not have happened; stays pending.
        case unknown
    }

    /// A personal vault's item changes wait while a keystore from the server under another
    /// passphrase waits to be merged: it may hold new keys made at a device's removal (architecture
    /// §9), under which this device's changes are sealed again first (`Vault.resealUncommittedChanges`),
    /// or every other device refuses them. Decided on what is in the clear (the wrapping differs): a
    /// passphrase changed elsewhere holds them too, until an unlock with the new one.
    static func holdsItems(personal: Bool, waiting: KeystoreRecord?, current: KeystoreRecord?) -> Bool {
        guard personal, let waiting, !waiting.isDeleted, let current, !current.isDeleted else { return false }
        return !waiting.hasSameWrapping(as: current)
    }

    static func send(_ change: PendingChange, in collection: CollectionName) -> Send {
        let record = Data(change.record.utf8)
        switch change.action {
        case .remove where change.lastModified == 0:
            // Never reached the server: nothing to delete there.
            return .nothing
        case .remove where change.isSealedItemRemoval:
            // A sealed removal is a record the server keeps (issue 41): a `DELETE` is refused by devices.
            return .request(.update(collection: collection, id: change.id, record: record, lastModified: change.lastModified))
        case .remove:
            return .request(.delete(collection: collection, id: change.id, lastModified: change.lastModified))
        case .add:
            return .request(.create(collection: collection, id: change.id, record: record))
        case .update where change.lastModified == 0:
            // Based on nothing the server has (it lost the record): created again.
            return .request(.create(collection: collection, id: change.id, record: record))
        case .update:
            return .request(.update(collection: collection, id: change.id, record: record, lastModified: change.lastModified))
        }
    }

    static func answer(_ result: KintoWriteResult, to action: PendingChange.Action) -> Answer {
        switch result {
        case .accepted(_, let serverStamp):
            return .acknowledged(lastModified: action == .remove ? nil : serverStamp)
        case .failed(404, _) where action == .remove, .preconditionFailed(existing: nil) where action == .remove:
            // Already gone on the server (a 412 without the current record: only a tombstone is
            // left, which a fetch may have brought already): the removal holds.
            return .acknowledged(lastModified: nil)
        case .preconditionFailed:
            return .rejected(reason: nil)
        case .failed(let status, let message):
            return .rejected(reason: "\(status) \(message)")
        case .unknown:
            return .unknown
        }
    }
}
