import Foundation

/// Why an invitation did not lead anywhere: exit 14 `INVITE`, one sentence each.
public enum InvitationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No rendezvous answers to this code: never made, expired and removed, or already used.
    case unknown
    case expired
    /// Another device claimed it first.
    case used
    case declined
    /// A record did not open under the code's key (or the other side's): someone changed it.
    case tampered
    /// The code is for something else (a device invitation given to `receive`, or an item to `join`).
    case wrongKind(expected: String)
    /// Nobody claimed the invitation before it expired.
    case unclaimed
    /// A record of the exchange was rewritten, removed, or written first by someone else (anyone
    /// who knows the code can): the exchange ends, nothing handed over.
    case replaced
    /// What was sent held `count` items, not one (`coffer receive` adds exactly one).
    case notOneItem(count: Int)
    /// The claimant's person did not say yes to the number (a no, or no answer): someone who
    /// knows the code may have stood in for the inviter, so nothing of the answer is taken.
    case unconfirmed

    public var description: String { userMessage }

    public var userMessage: String {
        switch self {
        case .unknown:
            return "No invitation answers to this code: it is unknown, expired or already used."
        case .expired:
            return "This invitation has expired; ask for a new code."
        case .used:
            return "This invitation was already claimed by another device; ask for a new code."
        case .declined:
            return "The invitation was declined on the inviting device."
        case .tampered:
            return "The invitation's records were changed on the server; nothing was accepted."
        case .wrongKind(let expected):
            return "This code is not \(expected)."
        case .unclaimed:
            return "Nobody used the invitation before it expired; it was removed from the server."
        case .replaced:
            return "A record of the invitation was replaced on the server; nothing was handed over."
        case .notOneItem(let count):
            return "What was sent holds \(count) items, not one; nothing was added."
        case .unconfirmed:
            return "The number was not confirmed on this device; nothing was accepted."
        }
    }
}
