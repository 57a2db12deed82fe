import CofferCore

/// What fetch writes for one page of records, as plain lists: built from the decisions, then
/// executed in the transaction that read the facts.
struct FetchPlan {
    var collection: CollectionName
    /// The server's ETag, the collection's marker once the plan is written.
    var marker: String
    /// No pending row existed when the facts were read: the drops would delete nothing.
    var pendingIsEmpty = false
    /// Records that become stable.
    var toStable: [SyncedRecord] = []
    /// Pending rows to write: remote changes queued, and our stable versions standing against older ones.
    var toQueue: [PendingChange] = []
    /// Pending rows to drop, by id and source.
    var toDrop: [(id: String, source: PendingChange.Source)] = []
    /// Whether a stable item replaced here is kept in the mirror (`SyncContext.mirrorsReplacedItems`).
    var mirrorsReplacedItems = false
    /// The same for a stable keystore (`SyncContext.mirrorsReplacedKeystores`).
    var mirrorsReplacedKeystores = false
    /// Stable items replaced before they were authenticated, kept as they were (`SyncStore.mirror`).
    var toMirror: [(id: String, text: String)] = []
    var received = 0
    var rolledBack = 0
    var refused = 0

    /// A version refused (`SignatureGate`): it replaces nothing; `putBack` goes up over it.
    mutating func refuse(putBack: PendingChange?) {
        refused += 1
        if let putBack { toQueue.append(putBack) }
    }

    /// Adds what `decision` means for `record`; `ours` reads stable's text, which stands against an
    /// older record.
    mutating func add(_ decision: FetchDecision, for record: IncomingRecord, facts: FetchFacts,
                      ours: () throws -> String?) throws {
        if FetchRules.isOlderThanStable(facts) { rolledBack += 1 }
        let header = record.header
        switch decision {
        case .dropEcho, .ignoreUnknownTombstone:
            break
        case .refuseTombstone:
            if let ours = try ours() {
                toQueue.append(PendingChange(collection: collection, id: header.id, source: .local, action: .add,
                                             lastModified: 0, record: ours))
            }
            refused += 1
        case .acknowledgeLostWrite:
            toStable.append(record.value)
            toDrop += [(header.id, .local), (header.id, .remote)]
        case .rebaseRemoval:
            toStable.append(record.value)
            toDrop.append((header.id, .remote))
            if var removal = facts.unconfirmedRemoval {
                removal.key = nil
                removal.lastModified = header.lastModified
                toQueue.append(removal)
            } else {
                toQueue.append(.itemRemoval(id: header.id, basedOn: header.lastModified))
            }
        case .applyToStable:
            // A version over one this device could read: the one it replaces is kept until an
            // unlocked sync has opened the newcomer (`Vault.checkMirroredItems`).
            let mirrors = collection == .items ? mirrorsReplacedItems : mirrorsReplacedKeystores
            if mirrors, facts.stable != nil, let text = try ours() {
                toMirror.append((header.id, text))
            }
            toStable.append(record.value)
            toDrop.append((header.id, .remote))
            received += 1
        case .restamp(let local):
            toStable.append(record.value)
            toDrop.append((header.id, .remote))
            var rebased = local
            rebased.key = nil
            rebased.lastModified = header.lastModified
            toQueue.append(rebased)
        case .standOursAgainst(let action):
            if let ours = try ours(), let stable = facts.stable {
                toQueue.append(PendingChange(collection: collection, id: header.id, source: .local, action: .update,
                                             lastModified: stable.lastModified, record: ours))
            }
            try queue(record, action)
        case .queue(let action):
            try queue(record, action)
        }
    }

    private mutating func queue(_ record: IncomingRecord, _ action: PendingChange.Action) throws {
        toQueue.append(PendingChange(collection: collection, id: record.header.id, source: .remote, action: action,
                                     lastModified: record.header.lastModified, record: try record.value.canonicalText()))
        received += 1
    }

    /// Writes the plan: stable records, dropped and queued pending rows, then the marker.
    func execute(in store: SyncStore) throws {
        for (id, text) in toMirror { try store.mirror(collection, id, text: text) }
        for record in toStable { try store.saveStable(record) }
        if !pendingIsEmpty {
            for (id, source) in toDrop { try store.deletePending(collection, id, source: source) }
        }
        for change in toQueue { try store.savePending(change) }
        try store.setMarker(collection, marker)
    }
}
