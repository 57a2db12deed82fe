import Crypto
import Foundation

/// An epoch's key sealed to one member's X25519 key (architecture §17, record `seals/EPOCH-PERSONID`).
///
/// A fresh X25519 key per seal; HKDF-SHA-256 of the agreement (salted with both public keys)
/// keys AES-256-GCM, whose associated data names the vault, the epoch and the person, so a seal
/// moved to another vault, epoch or person fails to open. Whoever opens one still checks the key
/// against the roster's commitment (`EpochCommitment`): only a member can seal, but anyone with
/// the person's public key could — the server included.
public enum EpochSeal {
    public static let collection = "seals"
    static let info = Data("coffer/v1/epoch-seal".utf8)
    /// The ephemeral public key, then AES-GCM's nonce, the 32 bytes and the tag.
    static let sealedLength = 32 + 12 + EpochCommitment.keyLength + 16

    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// The seal is not one: wrong length, a bad key, or it fails to authenticate.
        case unreadable
        public var description: String { "The key sealed to you for this vault does not open: it was not sealed to you." }
    }

    /// The record id of `epoch`'s seal for the person `personID`.
    public static func id(epoch: UInt64, personID: String) -> String { "\(epoch)-\(personID)" }

    public static func seal(_ epochKey: SecureBuffer, epoch: UInt64, to person: Person, in vaultID: SharedVaultID) throws -> Data {
        precondition(epochKey.count == EpochCommitment.keyLength)
        let recipient = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: person.sealingKey)
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let secret = try ephemeral.sharedSecretFromKeyAgreement(with: recipient)
        let key = symmetricKey(secret, ephemeral: ephemeral.publicKey.rawRepresentation, recipient: person.sealingKey)
        let box = try epochKey.withUnsafeBytes {
            try AES.GCM.seal($0, using: key, authenticating: associatedData(vaultID, epoch: epoch, personID: person.id))
        }
        guard let combined = box.combined else { throw CoreError.storage(reason: "AES-GCM produced no ciphertext") }
        return ephemeral.publicKey.rawRepresentation + combined
    }

    /// The epoch key in `sealed`, opened with the person's own keys.
    public static func open(_ sealed: Data, epoch: UInt64, in vaultID: SharedVaultID, with keys: PersonKeys) throws(Problem) -> SecureBuffer {
        guard sealed.count == sealedLength else { throw .unreadable }
        let ephemeralBytes = Data(sealed.prefix(32))
        do {
            let ephemeral = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: ephemeralBytes)
            let secret = try keys.agreement(with: ephemeral)
            let key = symmetricKey(secret, ephemeral: ephemeralBytes, recipient: keys.sealingPublicKey)
            let box = try AES.GCM.SealedBox(combined: sealed.dropFirst(32))
            var plaintext = try AES.GCM.open(box, using: key, authenticating: associatedData(vaultID, epoch: epoch, personID: keys.id))
            defer { wipe(&plaintext) }
            return SecureBuffer(copying: plaintext)
        } catch {
            throw .unreadable
        }
    }

    static func symmetricKey(_ secret: SharedSecret, ephemeral: Data, recipient: Data) -> SymmetricKey {
        secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: ephemeral + recipient, sharedInfo: info, outputByteCount: 32)
    }

    static func associatedData(_ vaultID: SharedVaultID, epoch: UInt64, personID: String) -> Data {
        Data("coffer/v1/seals/\(vaultID.bucket)/\(epoch)/\(personID)".utf8)
    }
}
