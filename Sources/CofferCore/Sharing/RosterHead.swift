import Foundation

/// The last roster entry a device verified: its position and hash.
///
/// A device is to keep it between syncs (`meta.roster_head`, architecture §17) to notice a server that serves the roster as it was before
/// (a rollback) or serves another history (a fork or a rewrite): either could bring back a
/// removed member or an old epoch.
public struct RosterHead: Sendable, Hashable {
    public let position: Int
    public let hash: Data

    public init(position: Int, hash: Data) {
        self.position = position
        self.hash = hash
    }

    /// What a served chain is to the chain a stored head ended.
    public enum Continuity: Sendable, Equatable, CustomStringConvertible {
        /// The same chain, or one that extends it.
        case continues
        /// The served chain has fewer entries than the device verified before.
        case rollback(verified: Int, served: Int)
        /// The served entry at the stored head's position hashes otherwise.
        case fork(position: Int)

        /// One sentence for a refused chain; the caller names the vault.
        public var description: String {
            switch self {
            case .continues:
                return "The server's roster continues the one this device verified."
            case .rollback(let verified, let served):
                return "The server's roster has \(served) entries but this device has verified \(verified): "
                    + "it was rolled back, so nothing was changed."
            case .fork(let position):
                return "The server's roster entry \(position) differs from the one this device verified: "
                    + "the roster was forked or rewritten, so nothing was changed."
            }
        }
    }

    /// Whether `served`, a chain `RosterChain.verify` accepted, continues the chain this head ended.
    public func continuity(of served: [RosterEntry]) -> Continuity {
        guard position < served.count else { return .rollback(verified: position + 1, served: served.count) }
        guard position >= 0, served[position].hash == hash else { return .fork(position: position) }
        return .continues
    }
}
