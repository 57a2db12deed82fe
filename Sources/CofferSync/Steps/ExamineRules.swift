import CofferCore

/// The examine step's rules (Lockbox's sync design, "Examining and Applying Pending Changes"), as a pure
/// function from the two pending actions for one id to a named decision.
public enum ExamineDecision: Sendable, Equatable {
    /// No local change: apply the remote change to stable and drop it.
    case applyRemote
    /// No local change, but the remote one must be authenticated first: it waits for an unlocked
    /// reconcile (`SyncContext.holdsUntilAuthenticated`).
    case awaitAuthentication
    /// Remote update against a local remove: favour the update — apply it, drop both.
    case applyRemoteDropLocal
    /// Remote remove against a local update: drop the remote remove, keep the local update, which
    /// goes up again as a new record over the server's tombstone.
    case keepLocalOverTombstone
    /// Both removed: apply the removal, drop both.
    case removeBoth
    /// Both changed: reconcile (needs the plaintext, so waits for an unlock).
    case conflict
}

public enum ExamineRules {
    public static func decide(remote: PendingChange.Action, local: PendingChange.Action?,
                              holdsUntilAuthenticated: Bool = false) -> ExamineDecision {
        guard let local else { return holdsUntilAuthenticated ? .awaitAuthentication : .applyRemote }
        switch (remote, local) {
        case (.remove, .remove): return .removeBoth
        case (.remove, .add), (.remove, .update): return .keepLocalOverTombstone
        case (.add, .remove), (.update, .remove): return .applyRemoteDropLocal
        case (.add, .add), (.add, .update), (.update, .add), (.update, .update): return .conflict
        }
    }
}
