import CofferCore
import Foundation

/// A shared vault's roster this device does not accept (architecture §17): the sync stops before
/// anything is fetched or sent, with one sentence naming the vault.
public struct RosterRefusal: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// Records that are not roster entries, or not numbered one after another.
        case malformed(String)
        /// An entry that breaks a rule of the chain.
        case invalid(RosterProblem)
        /// Shorter than, or different from, the roster this device verified before.
        case discontinued(RosterHead.Continuity)
        /// The roster no longer lists this person.
        case removed
        /// The server refuses this account on the vault's bucket.
        case refusedByServer
    }

    public let vault: String
    public let reason: Reason

    public init(vault: String, reason: Reason) {
        self.vault = vault
        self.reason = reason
    }

    public var description: String {
        let named = "\u{201C}\(TerminalText.name(vault))\u{201D}"
        switch reason {
        case .malformed(let what): return "The server's roster of \(named) is refused: \(what)"
        case .invalid(let problem): return "The server's roster of \(named) is refused: \(problem)"
        case .discontinued(let continuity): return "The roster of \(named) is refused. \(continuity)"
        case .removed: return "You are no longer a member of \(named): its roster says you were removed."
        case .refusedByServer:
            return "The server refuses your account on \(named): you were removed from it, or your account's password changed."
        }
    }

    /// How the sync names it: a removal is an authorisation failure, a rolled-back or forked
    /// roster the server's rollback, anything else a server answer that was refused.
    public var errorName: SyncErrorName {
        switch reason {
        case .removed, .refusedByServer: return .syncAuth
        case .discontinued: return .rollback
        case .malformed, .invalid: return .network
        }
    }
}
