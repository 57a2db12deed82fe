import CofferCore
import CofferSync

/// An error the agent reported: what kind of failure it is, and its sentence.
///
/// The kind is a name, not an exit code: the command line turns it into its exit code
/// (`ExitStatus`, architecture §15), the same code the error would have had without the agent.
public struct AgentFailure: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The failures a command tells apart, as `ExitStatus.code(for:)` does.
    ///
    /// On the wire a kind is the number of the exit code it stands for, under the key `exitCode`
    /// (the agent's answers carried exit codes before the kinds had names): an agent and a client
    /// of two builds still read each other's failures. A number that is no kind is a malformed answer.
    public enum Kind: Int32, Sendable, Equatable, Codable, CaseIterable {
        /// Any other error.
        case other = 1
        /// A request out of range (a negative idle time), or a vault with no sync account.
        case usage = 2
        case wrongPassphrase = 3
        case noSuchItem = 4
        /// An invalid item, a duplicate, a refused import, an invalid TOTP secret.
        case invalidItem = 5
        /// A name that matches several items.
        case ambiguous = 6
        case offline = 10
        case network = 11
        case syncLocked = 12
        case syncAuth = 13
        /// The server sent records that are not ours (`SyncErrorName.forged`). An agent from before
        /// 2026-12-07 never sends it; a client from before then reads it as a malformed answer.
        case forged = 15

        /// The kind of a vault's error; `other` for anything that has no name of its own. The
        /// command line classifies a `CoreError` through this too, so an exit code is the same
        /// with or without the agent.
        public init(classifying error: Error) {
            switch error {
            case let error as AgentFailure: self = error.kind
            case let error as CoreError:
                switch error {
                case .wrongPassphrase: self = .wrongPassphrase
                case .noSuchItem, .noItemNamed, .removedMeanwhile: self = .noSuchItem
                case .invalidItem, .duplicateItem, .invalidImport, .invalidTOTP, .invalidTOTPImage: self = .invalidItem
                case .ambiguousName: self = .ambiguous
                default: self = .other
                }
            default: self = .other
            }
        }

        /// The kind of a sync that ended in one of the named errors.
        public init(_ name: SyncErrorName) {
            switch name {
            case .offline: self = .offline
            case .network, .rollback: self = .network
            case .disk: self = .other
            case .syncLocked: self = .syncLocked
            case .syncAuth: self = .syncAuth
            case .forged: self = .forged
            }
        }
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `error` as the agent reports it: its kind, and its sentence as the command line would print it.
    public init(reporting error: Error) {
        self.init(Kind(classifying: error), "\(error)")
    }

    public var description: String { message }

    private enum CodingKeys: String, CodingKey {
        case kind = "exitCode"
        case message
    }
}

extension AgentFailure {
    /// A device command or `sync --unlock` on a vault without an account.
    public static let noAccount = AgentFailure(
        .usage, "This vault has no sync account; set one with `coffer account signup` or `coffer account login`.")

    /// `renew` with an idle limit that is not a number of seconds, 0 or more (it would never run out).
    public static let invalidIdle = AgentFailure(
        .usage, "The idle time must be a number of seconds, 0 or more; the limit is unchanged.")
}
