import ArgumentParser
import CofferAgent
import CofferCore
import CofferSync

/// The exit codes of architecture §6, and the one sentence printed for an error.
enum ExitStatus {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let wrongPassphrase: Int32 = 3
    static let noSuchItem: Int32 = 4
    static let invalidItem: Int32 = 5
    static let ambiguous: Int32 = 6
    static let offline: Int32 = 10
    static let network: Int32 = 11
    static let syncLocked: Int32 = 12
    static let syncAuth: Int32 = 13
    static let invite: Int32 = 14
    static let forged: Int32 = 15

    /// Every code with what it means: the man page's EXIT CODES section is written from this.
    static let meanings: [(code: Int32, meaning: String)] = [
        (ok, "success (for `health`, also when it found weak, reused, old or breached passwords)"),
        (failure, "any other error, said in one sentence on stderr (a sync's DISK: this device's vault file could not be written)"),
        (usage, "usage: an unknown command or option, or a value out of range"),
        (wrongPassphrase, "wrong passphrase"),
        (noSuchItem, "no such item"),
        (invalidItem, "invalid item (or an import that was refused)"),
        (ambiguous, "AMBIGUOUS: a name matches several items"),
        (offline, "OFFLINE: the sync server cannot be reached"),
        (network, "NETWORK: the connection failed or the server answered with an error; ROLLBACK: the server sent records older than this device's, which kept its own"),
        (syncLocked, "SYNC_LOCKED: conflicts wait for the vault to be unlocked"),
        (syncAuth, "SYNC_AUTH: the sync account's password was refused, or a shared vault no longer has you as a member"),
        (invite, "INVITE: the invitation code is unknown, expired, used or declined, or its number was not confirmed"),
        (forged, "FORGED: the server sent records that are not ours (they do not open, or a deletion nobody wrote); this device kept its copies and sent them again"),
    ]

    static func code(for error: Error) -> Int32 {
        switch error {
        // A vault's error has the kind the agent would report it with: one exit code, agent or not.
        case is CoreError: return code(for: AgentFailure.Kind(classifying: error))
        case let error as AgentFailure: return code(for: error.kind)
        case let error as ReferenceFailure: return code(for: error.underlying)
        case let error as AgentStartFailure: return error.exitCode
        case let error as SyncFailure: return code(for: error.name)
        case let error as RosterRefusal: return code(for: error.errorName)
        case is InvitationError, is InvitationCode.Problem: return invite
        // A key file or key that cannot be stored is refused as an import is.
        case let error as SSHKeyError: return error == .wrongPassphrase ? wrongPassphrase : invalidItem
        case is ValidationError, is UsageError, is RecoveryCode.Problem, is RecoveryKit.Malformed: return usage
        default: return failure
        }
    }

    /// The exit code of a failure the agent reported, or of a vault's error (`AgentFailure.Kind(classifying:)`).
    static func code(for kind: AgentFailure.Kind) -> Int32 {
        switch kind {
        case .other: return failure
        case .usage: return usage
        case .wrongPassphrase: return wrongPassphrase
        case .noSuchItem: return noSuchItem
        case .invalidItem: return invalidItem
        case .ambiguous: return ambiguous
        case .offline: return offline
        case .network: return network
        case .syncLocked: return syncLocked
        case .syncAuth: return syncAuth
        case .forged: return forged
        }
    }

    static func code(for name: SyncErrorName) -> Int32 {
        switch name {
        case .offline: return offline
        case .network, .rollback: return network
        case .disk: return failure
        case .syncLocked: return syncLocked
        case .syncAuth: return syncAuth
        case .forged: return forged
        }
    }
}

/// A usage mistake found after parsing (exit 2).
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A sync that ended in one of the named errors (exit 10–13, 15).
struct SyncFailure: Error, CustomStringConvertible {
    var name: SyncErrorName
    var description: String
}

/// Any other failure a command reports in its own words (exit 1).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
