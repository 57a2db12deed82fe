import Crypto
import Foundation

/// A person's two private keys for shared vaults (architecture §17): Ed25519 to sign roster
/// entries, X25519 to open the epoch keys sealed to them.
///
/// Made once, on the person's first `share create` or `share join`, and kept in their personal
/// key ring, so every device of theirs holds the same two keys.
public struct PersonKeys: Sendable {
    private let signing: Curve25519.Signing.PrivateKey
    private let sealing: Curve25519.KeyAgreement.PrivateKey

    /// Two fresh keys.
    public init() {
        signing = Curve25519.Signing.PrivateKey()
        sealing = Curve25519.KeyAgreement.PrivateKey()
    }

    /// The keys whose raw 32-byte private halves are `signingKey` and `sealingKey`.
    ///
    /// - Throws: `Person.Problem.keyLength` for a buffer of another length.
    public init(signingKey: SecureBuffer, sealingKey: SecureBuffer) throws {
        guard signingKey.count == Person.keyLength, sealingKey.count == Person.keyLength else { throw Person.Problem.keyLength }
        signing = try signingKey.withUnsafeBytes { try Curve25519.Signing.PrivateKey(rawRepresentation: $0) }
        sealing = try sealingKey.withUnsafeBytes { try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) }
    }

    /// The id of the person these keys belong to.
    public var id: String { Person.id(ofSigningKey: signingPublicKey) }

    public var signingPublicKey: Data { signing.publicKey.rawRepresentation }
    public var sealingPublicKey: Data { sealing.publicKey.rawRepresentation }

    /// The public identity these keys make with a name and an account.
    public func person(name: String, account: String) throws(Person.Problem) -> Person {
        try Person(name: name, signingKey: signingPublicKey, sealingKey: sealingPublicKey, account: account)
    }

    var signingPrivateKey: SecureBuffer { SecureBuffer(copying: signing.rawRepresentation) }
    var sealingPrivateKey: SecureBuffer { SecureBuffer(copying: sealing.rawRepresentation) }

    /// The X25519 agreement of this person's sealing key with `publicKey` (opening an epoch seal).
    func agreement(with publicKey: Curve25519.KeyAgreement.PublicKey) throws -> SharedSecret {
        try sealing.sharedSecretFromKeyAgreement(with: publicKey)
    }

    /// An Ed25519 signature of `bytes`.
    func signature(for bytes: Data) throws -> Data {
        try signing.signature(for: bytes)
    }
}

extension PersonKeys {
    /// The raw private halves, to be sealed under the person's passphrase (`MemberSecrets`).
    public var privateKeys: (signing: SecureBuffer, sealing: SecureBuffer) {
        (signingPrivateKey, sealingPrivateKey)
    }
}
