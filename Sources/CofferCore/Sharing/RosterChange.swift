import Foundation

/// The one change a roster entry makes (architecture §17).
public enum RosterChange: Sendable, Hashable {
    /// The vault's first member: entry 0 only, signed by that person.
    case create(Person)
    /// A member more; the epoch stays.
    case add(Person)
    /// A member fewer (the author themselves: leaving); a new epoch.
    case remove(personID: String)
    /// The recovery kit's X25519 public key, replacing any earlier one; a new epoch.
    case recovery(sealingKey: Data)
    /// A new epoch, nobody added or removed.
    case rotate

    /// Whether the entry making this change begins a new epoch.
    public var beginsEpoch: Bool {
        switch self {
        case .create, .remove, .recovery, .rotate: return true
        case .add: return false
        }
    }
}
