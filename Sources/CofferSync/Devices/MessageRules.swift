import CofferCore

/// What handling knows of one message in the inbox, as values.
struct MessageFacts: Equatable {
    /// What opening the ciphertext gave (opened only when the rules could get that far).
    enum Opened: Equatable {
        /// The vault is locked: nothing can be opened.
        case locked
        /// Not tried: the message is done, handled or expired whatever it says.
        case notTried
        /// It does not authenticate (a flipped bit, an unknown or unverified sender, a moved id).
        case unreadable
        case content(MessageContent)
    }

    var isDone: Bool
    var isHandled: Bool
    /// The expiry in the clear (ms).
    var expires: Int64
    var opened: Opened
    var now: Int64
    /// When this process unlocked the vault (ms), nil while locked.
    var unlockedAt: Int64?

    /// Whether opening can change the decision: not for done, replayed or expired messages.
    static func needsOpening(isDone: Bool, isHandled: Bool, expires: Int64, now: Int64) -> Bool {
        !isDone && !isHandled && expires > now
    }
}

/// The one decision taken for a message.
enum MessageDecision: Equatable {
    enum Refusal: Equatable {
        /// Its id was handled already (a replay, or a listing before the server copy was deleted).
        case replayed
        case expired
        case unreadable
        /// The sealed expiry differs from the one in the clear: someone edited the record.
        case alteredExpiry
    }

    /// Done earlier: only the deletion on the server is left.
    case alreadyDone
    /// Deleted on the server, never applied, not remembered.
    case refuse(Refusal)
    /// Kept for an unlock.
    case wait
    /// Remembered as handled, with no effect in this process: it was unlocked after the lock was
    /// sent (a screen of this vault unlocked earlier still obeys it, from `remote_lock`).
    case ignoreLockBeforeUnlock(MessageContent)
    /// Its effect and its `handled` row commit together.
    case apply(MessageContent)
}

/// Delivery exactly once (architecture §9): pure rules over `MessageFacts`.
enum MessageRules {
    static func decide(_ facts: MessageFacts) -> MessageDecision {
        // Order matters: a handled id is only deleted even once expired; an expired message is
        // deleted even while locked; nothing is opened for either.
        if facts.isDone { return .alreadyDone }
        if facts.isHandled { return .refuse(.replayed) }
        if facts.expires <= facts.now { return .refuse(.expired) }
        switch facts.opened {
        case .locked, .notTried:
            return .wait
        case .unreadable:
            return .refuse(.unreadable)
        case .content(let content):
            if content.expires != facts.expires { return .refuse(.alteredExpiry) }
            if content.topic == .lock, let unlockedAt = facts.unlockedAt, unlockedAt > content.created {
                return .ignoreLockBeforeUnlock(content)
            }
            return .apply(content)
        }
    }
}
