import CofferCore

/// What fetch knows of one record the server sent, read from the vault before deciding.
struct FetchFacts: Sendable, Equatable {
    /// Whether this device has a local change of the record, and how it compares.
    enum Local: Sendable, Equatable {
        case none
        /// Pending, with exactly the content the server sent: a write whose acknowledgement we lost.
        case sameContent
        case different
        /// A removal of an item this device created and no server answer has confirmed (nothing
        /// on stable, based on nothing).
        case removalOfUnconfirmed
    }

    var header: SyncRecordHeader
    var stable: StableStamp?
    var local: Local
    /// The local change, when the server's record is stable's version with a new timestamp only
    /// (a shared vault's revocation rewrites every record's permissions, which Kinto stamps anew).
    var restampedLocal: PendingChange? = nil
    /// The record must be authenticated (by an unlocked reconcile) before it replaces stable
    /// (`SyncContext.holdsUntilAuthenticated`).
    var holdsUntilAuthenticated = false
    /// An item: a removal must be sealed (a plain tombstone is refused) and is authenticated by an
    /// unlocked reconcile before it removes what this device holds (issue 41).
    var judgesRemovals = false
    /// This device's own removal, when `local` is `removalOfUnconfirmed`: rebased, not rewritten.
    var unconfirmedRemoval: PendingChange? = nil
}

/// Fetch's decision for one record (Lockbox's sync design, "Fetching"; Firefox for iOS's sync state
/// machine for rollbacks), one name each.
enum FetchDecision: Sendable, Equatable {
    /// Our own write coming back: stable already holds exactly this version.
    case dropEcho
    /// A write of ours whose acknowledgement never arrived: the server has it, so it is stable now
    /// and nothing of it stays pending.
    case acknowledgeLostWrite
    /// A tombstone of something this device never had.
    case ignoreUnknownTombstone
    /// A plain tombstone (a Kinto `DELETE`: no key holder's seal) of an item this device holds and
    /// has not changed: refused, and stable's version goes up again as a new record.
    case refuseTombstone
    /// Nothing local to weigh it against: it becomes stable at once (what examine would do).
    case applyToStable
    /// A local change waits for it, or it must be authenticated before it replaces stable: queued
    /// as a remote change for examine and reconcile.
    case queue(PendingChange.Action)
    /// Older than the version stable holds (the server rolled back or replays it) and nothing
    /// local: our stable version stands against it as a local change, and it is queued, so
    /// reconcile merges the two without a common base and never lets the old one replace ours.
    case standOursAgainst(PendingChange.Action)
    /// The first version of an item this device removed before any server answer confirmed it:
    /// our own creation, pushed by a sync (another process's) whose answer is not applied yet.
    /// It becomes stable and the removal stays, based on it, to delete it on the server.
    case rebaseRemoval
    /// Stable's own version under a new timestamp, while a local change waits: stable takes the
    /// timestamp and the local change is based on it, so it is pushed as it is, not merged.
    case restamp(PendingChange)
}

/// The fetch rules: pure, from what is known of one record to a decision.
enum FetchRules {
    static func decide(_ facts: FetchFacts) -> FetchDecision {
        let header = facts.header
        if let stable = facts.stable, stable.lastModified == header.lastModified { return .dropEcho }
        if facts.local == .sameContent, !header.isDeleted { return .acknowledgeLostWrite }
        if let local = facts.restampedLocal, !header.isDeleted { return .restamp(local) }
        if facts.local == .removalOfUnconfirmed, !header.isDeleted, facts.stable == nil,
           let lineage = header.lineage, lineage.parent == Lineage.unknown.parent, lineage.revision > 0 {
            return .rebaseRemoval
        }
        let action: PendingChange.Action = header.isDeleted ? .remove : (facts.stable == nil ? .add : .update)
        let hasLocal = facts.local != .none
        if isOlderThanStable(facts) {
            return hasLocal ? .queue(action) : .standOursAgainst(action)
        }
        if header.isDeleted, facts.stable == nil, !hasLocal { return .ignoreUnknownTombstone }
        if facts.judgesRemovals, header.isDeleted, facts.stable != nil, !hasLocal {
            return header.isSealedRemoval ? .queue(action) : .refuseTombstone
        }
        // Never over a stable copy the device can read before it is checked; over nothing, nothing is lost.
        if facts.holdsUntilAuthenticated, facts.stable != nil { return .queue(action) }
        return hasLocal ? .queue(action) : .applyToStable
    }

    /// Whether the record is a version older than stable's (a lower lineage revision), and not
    /// stable's sibling (re-created over a deletion: `Lineage.isSibling`). A sealed removal counts,
    /// and one that is stable's sibling is older: each push names the version it replaces, so a
    /// removal made from the version stable was made from can only have been on the server
    /// before stable went up over it — served again, it would remove the version that came back.
    static func isOlderThanStable(_ facts: FetchFacts) -> Bool {
        guard let stable = facts.stable?.lineage, !facts.header.isDeleted || facts.header.isSealedRemoval,
              let theirs = facts.header.lineage else { return false }
        if facts.header.isSealedRemoval { return theirs.revision < stable.revision || theirs.isSibling(of: stable) }
        return theirs.revision < stable.revision && !theirs.isSibling(of: stable)
    }
}
