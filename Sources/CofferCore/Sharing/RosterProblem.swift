import Foundation

/// Why a roster chain was refused: the first entry that breaks a rule of architecture §17, and
/// which rule.
public struct RosterProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The entry's position in the chain (its record's number).
    public let position: Int
    public let reason: Reason

    public enum Reason: Sendable, Equatable {
        case noEntries
        case tooManyEntries
        /// The entry names another vault: the chain was moved from another bucket.
        case otherVault(SharedVaultID)
        case wrongSequence(UInt64)
        /// The entry was not signed after the entry it must follow (`expected`; nil for entry 0,
        /// which must name none).
        case wrongPrevious(expected: Int?)
        case firstIsNotCreate
        case createNotSelfSigned
        case createAgain
        case authorNotMember
        case badSignature
        case alreadyMember(String)
        case notMember(String)
        case tooManyMembers
        case invalidRecoveryKey
        case wrongEpoch(expected: UInt64, found: UInt64)
        /// An `add` whose commitment is not the epoch's: it would change the epoch's key.
        case commitmentChanged
        case afterLastMember
        /// A raced removal whose author is a member but not the one the raced-against entry removed.
        case racedAuthorNotRemoved(against: Int)
        /// A raced removal that does not remove the author of the entry it raced against.
        case racedRemovesOther(against: Int)
    }

    public init(position: Int, reason: Reason) {
        self.position = position
        self.reason = reason
    }

    public var description: String {
        let entry = "Roster entry \(position)"
        switch reason {
        case .noEntries:
            return "The roster has no entries."
        case .tooManyEntries:
            return "\(entry) is more than the \(RosterChain.entryLimit) entries a roster may have."
        case .otherVault(let vault):
            return "\(entry) belongs to vault \(vault), not this one: the roster was moved from another vault."
        case .wrongSequence(let found):
            return "\(entry) carries sequence number \(found), not \(position)."
        case .wrongPrevious(let expected?):
            return "\(entry) was not signed after entry \(expected): it names another entry before it."
        case .wrongPrevious(nil):
            return "\(entry) names an entry before it, but it is the first."
        case .firstIsNotCreate:
            return "\(entry) does not create the vault, though it is the first."
        case .createNotSelfSigned:
            return "\(entry) creates the vault for someone other than its signer."
        case .createAgain:
            return "\(entry) creates the vault again; only entry 0 may."
        case .authorNotMember:
            return "\(entry) is signed by someone who is not a member."
        case .badSignature:
            return "\(entry) has a signature that does not verify with its author's key."
        case .alreadyMember(let id):
            return "\(entry) adds \(id), who is already a member."
        case .notMember(let id):
            return "\(entry) removes \(id), who is not a member."
        case .tooManyMembers:
            return "\(entry) adds a member to a vault that has the most it may have, \(RosterChain.memberLimit)."
        case .invalidRecoveryKey:
            return "\(entry) records a recovery key that is not \(Person.keyLength) bytes."
        case .wrongEpoch(let expected, let found):
            return "\(entry) says epoch \(found) where it must say \(expected)."
        case .commitmentChanged:
            return "\(entry) adds a member but commits to another epoch key."
        case .afterLastMember:
            return "\(entry) follows the removal of the last member; nobody may sign after it."
        case .racedAuthorNotRemoved(let against):
            return "\(entry) repeats sequence number \(against), but entry \(against) did not remove its author."
        case .racedRemovesOther(let against):
            return "\(entry) repeats sequence number \(against), but does not remove the author of entry \(against)."
        }
    }
}
