import Crypto
import Foundation

/// One signed change of a shared vault's roster (architecture §17), as stored in `roster/SEQ`.
///
/// Everything but the signature is signed, in the canonical encoding of
/// `RosterEntry+Encoding.swift`. An entry is made by `RosterChain.entry(appending:to:by:epochKey:)`
/// or decoded from a record; neither checks it against the chain: `RosterChain.verify` does.
public struct RosterEntry: Sendable, Hashable {
    public static let hashLength = 32
    public static let signatureLength = 64

    /// The vault whose roster this is: a chain cannot be moved to another vault's bucket.
    public let vaultID: SharedVaultID
    /// The position the author appended it at (one less for a raced removal, `RosterChain`).
    public let sequence: UInt64
    /// The hash (`hash`) of the entry it was signed after; zeros for the first.
    public let previous: Data
    /// The id of the person who signed it.
    public let author: String
    public let change: RosterChange
    /// The epoch after this entry, and the commitment to that epoch's key (`EpochCommitment`).
    public let epoch: UInt64
    public let epochCommitment: Data
    /// Ed25519, by the author's signing key, over `signedBytes`.
    public let signature: Data

    /// An entry signed by `keys`, whose person is its author.
    package init(vaultID: SharedVaultID, sequence: UInt64, previous: Data, change: RosterChange, epoch: UInt64,
                 epochCommitment: Data, signedBy keys: PersonKeys) throws {
        precondition(previous.count == Self.hashLength && epochCommitment.count == Self.hashLength)
        let unsigned = RosterEntry(vaultID: vaultID, sequence: sequence, previous: previous, author: keys.id, change: change,
                                   epoch: epoch, epochCommitment: epochCommitment, signature: Data())
        self.init(vaultID: vaultID, sequence: sequence, previous: previous, author: keys.id, change: change, epoch: epoch,
                  epochCommitment: epochCommitment, signature: try keys.signature(for: unsigned.signedBytes))
    }

    /// The fields as they are, signature included (decoding, and the signing initialiser).
    init(vaultID: SharedVaultID, sequence: UInt64, previous: Data, author: String, change: RosterChange, epoch: UInt64,
         epochCommitment: Data, signature: Data) {
        self.vaultID = vaultID
        self.sequence = sequence
        self.previous = Data(previous)
        self.author = author
        self.change = change
        self.epoch = epoch
        self.epochCommitment = Data(epochCommitment)
        self.signature = Data(signature)
    }

    /// The hash the next entry names as `previous`, and a device remembers as its roster head:
    /// SHA-256 of the signed bytes followed by the signature.
    ///
    /// The signature is hashed too, so an entry its author signed again (Ed25519 signatures
    /// need not be deterministic) is a different entry, and a served chain that swapped one for
    /// the other is a fork.
    public var hash: Data {
        var hasher = SHA256()
        hasher.update(data: signedBytes)
        hasher.update(data: signature)
        return Data(hasher.finalize())
    }

    /// Whether the signature verifies under the raw Ed25519 public key `signingKey`.
    func isSigned(byKey signingKey: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: signingKey) else { return false }
        return key.isValidSignature(signature, for: signedBytes)
    }
}
