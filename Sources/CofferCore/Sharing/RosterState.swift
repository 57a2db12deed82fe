import Foundation

/// What a verified roster says now (architecture §17): who the members are, the epoch, the
/// recovery kit's key and where the chain ends.
public struct RosterState: Sendable, Hashable {
    /// A member, with the entry that made them one.
    public struct Member: Sendable, Hashable {
        public let person: Person
        /// The id of the member who signed the `add` (their own for the vault's creator).
        public let addedBy: String
        /// The position of that entry.
        public let addedAt: Int
    }

    public let vaultID: SharedVaultID
    /// By person id. Empty once the last member is removed: the chain is then final.
    public internal(set) var members: [String: Member]
    public internal(set) var epoch: UInt64
    /// The commitment to the epoch's key that the entry beginning the epoch made.
    public internal(set) var epochCommitment: Data
    /// The position of the entry that began the epoch.
    public internal(set) var epochStart: Int
    /// The recovery kit's X25519 public key, once a `recovery` entry recorded one.
    public internal(set) var recoveryKey: Data?
    /// The last entry verified.
    public internal(set) var head: RosterHead
    /// Set by a raced removal, which keeps the epoch its removed winner knew the key of; cleared
    /// by the next entry that begins an epoch (a member device appends a `rotate`).
    public internal(set) var needsRotation: Bool

    /// Whether no entry may follow: nobody is left to sign one.
    public var isFinal: Bool { members.isEmpty }
}
