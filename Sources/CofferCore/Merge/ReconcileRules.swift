/// What reconcile knows of one item changed here and on the server, read (and opened) before
/// deciding.
struct ReconcileFacts {
    /// What opening the server's version gave.
    enum Remote {
        case readable(Item)
        /// Fails authentication under the item key every device seals with: nobody can read it.
        case unreadable
    }

    var local: ItemRecord
    var remote: ItemRecord
    /// Whether this device holds the item's key.
    var hasKey: Bool
}

/// Reconcile's decision for one item (Lockbox's sync design, "Item Conflicts"; Firefox for iOS's sync
/// state machine for lineage), one name each.
enum ReconcileDecision: Equatable {
    /// Not for reconcile: a deletion on either side (examine decides those), or the key has not
    /// arrived yet — it stays in conflict for a later sync.
    case wait
    /// The server's version was made from our local one (our push arrived, its acknowledgement
    /// was lost, and another device edited on top): remote already holds our change and wins.
    case alreadyOurs
    /// The server's version cannot be opened: ours replaces it, based on its version.
    case replaceUnreadable
    /// Both changed: merge (needs both plaintexts and, where usable, the common base).
    case merge
}

/// The reconcile rules, pure: from the two records (and whether the key is here) to a decision.
enum ReconcileRules {
    /// `opened` opens the server's version; asked only when the decision depends on it.
    static func decide(_ facts: ReconcileFacts, remote opened: () throws -> ReconcileFacts.Remote) rethrows -> ReconcileDecision {
        guard !facts.remote.isDeleted, !facts.local.isDeleted, facts.hasKey else { return .wait }
        if Lineage.of(facts.remote.encrypted)?.isMade(from: facts.local.encrypted) == true { return .alreadyOurs }
        if case .unreadable = try opened() { return .replaceUnreadable }
        return .merge
    }

    /// Whether stable can serve as the merge's common base: not when it is newer than remote (the
    /// server rolled back or replays an old version) — merged against it, every field changed here
    /// since remote would silently revert.
    static func isUsableBase(_ stable: ItemRecord, against remote: ItemRecord) -> Bool {
        !Lineage.isOlder(remote.encrypted, than: stable.encrypted)
    }
}
