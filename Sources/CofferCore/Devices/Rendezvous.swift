import Crypto
import Foundation

/// What both sides of an invitation derive from its code (the Airmail journal's pairing, on Kinto alone).
///
/// The code is stretched with Argon2id (the vault's minimum cost), so what the server sees — the
/// name and password of the throwaway account the two sides meet in — does not let it try the
/// 2⁵⁰ codes; HKDF then splits the result into that name and password and a key that seals
/// everything the two sides write there. The server sees ciphertext only.
public struct RendezvousKeys: Sendable {
    public let accountName: String
    public let accountPassword: String
    private let boxKey: SymmetricKey

    /// Fixed: both sides must derive the same keys from the code alone. Version 2 is the
    /// committed exchange (`PairingTranscript`); an older binary's code names another account, so
    /// the two never meet half-way.
    private static let salt = Data("coffer-pairing-2".utf8)

    public init(code: InvitationCode) throws {
        let stretched = try Argon2id.derive(passphrase: SecureBuffer(copying: Data(code.symbols.utf8)), salt: Self.salt,
                                            memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations)
        let name = HKDFSHA256.derive(inputKey: stretched, info: "coffer rendezvous account", length: 16)
        let password = HKDFSHA256.derive(inputKey: stretched, info: "coffer rendezvous password", length: 32)
        let box = HKDFSHA256.derive(inputKey: stretched, info: "coffer rendezvous box", length: 32)
        accountName = "rv-" + name.withUnsafeBytes { Hex.lowercase($0) }
        accountPassword = password.withUnsafeBytes { Data($0).base64EncodedString() }
        boxKey = box.withUnsafeBytes { SymmetricKey(data: $0) }
    }

    /// Seals `plaintext` for the record `label` (the label is bound in: a record cannot be moved).
    public func seal(_ plaintext: Data, label: String) throws -> String {
        try Self.seal(plaintext, key: boxKey, label: label)
    }

    /// Opens what `seal` made for `label`; `CoreError.tampered` for anything else.
    public func open(_ sealed: String, label: String) throws -> Data {
        try Self.open(sealed, key: boxKey, label: label)
    }

    static func seal(_ plaintext: Data, key: SymmetricKey, label: String) throws -> String {
        do {
            return try AES.GCM.seal(plaintext, using: key, authenticating: Data(label.utf8)).combined?.base64EncodedString() ?? ""
        } catch {
            throw CoreError.storage(reason: "sealing the \(label) record failed")
        }
    }

    static func open(_ sealed: String, key: SymmetricKey, label: String) throws -> Data {
        guard let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
              let plaintext = try? AES.GCM.open(box, using: key, authenticating: Data(label.utf8)) else {
            throw CoreError.tampered(what: "the \(label) record of the invitation")
        }
        return plaintext
    }
}

/// Everything the two sides of a pairing said, in order: what the inviter offered, the
/// claimant's name and its commitment, then both keys.
///
/// The confirmation number and the sealing key are derived over all of it, so a record someone
/// changed on the way gives the two sides different numbers. The claimant commits to its key
/// (`commitment(to:)`) before it sees the inviter's, and the inviter shows its key before it sees
/// the claimant's: whoever sits in the middle must fix both keys it shows before it learns what
/// the number will be, and can only guess it (one in 10⁶).
public struct PairingTranscript: Sendable, Equatable {
    public var kind: String
    /// Milliseconds since 1970.
    public var expires: Int64
    public var name: String
    public var commitment: Data
    public var inviterKey: Data
    public var claimantKey: Data

    public init(kind: String, expires: Int64, name: String, commitment: Data, inviterKey: Data, claimantKey: Data) {
        self.kind = kind
        self.expires = expires
        self.name = name
        self.commitment = commitment
        self.inviterKey = inviterKey
        self.claimantKey = claimantKey
    }

    /// What the claimant writes in its claim instead of its key: SHA-256 over a domain and the key.
    public static func commitment(to key: Data) -> Data {
        Data(SHA256.hash(data: Data("coffer pairing 2 commitment".utf8) + key))
    }

    /// Whether `key` is the one the claim committed to.
    public var isRevealMatchingCommitment: Bool {
        Self.commitment(to: claimantKey) == commitment
    }

    /// Each field with its length in front (four bytes, big-endian): no two transcripts read alike.
    var bytes: Data {
        var bytes = Data("coffer pairing 2".utf8)
        let expiry = withUnsafeBytes(of: expires.bigEndian) { Data($0) }
        for field in [Data(kind.utf8), expiry, Data(name.utf8), commitment, inviterKey, claimantKey] {
            bytes += withUnsafeBytes(of: UInt32(field.count).bigEndian) { Data($0) }
            bytes += field
        }
        return bytes
    }
}

/// One side's ephemeral X25519 key for a pairing, and what it agrees on with the other side's.
///
/// Both sides derive, from the shared secret and the whole transcript, a key that seals what is
/// handed over and a confirmation number the two people compare: a server (or anyone with the
/// code) that put its own key in the middle would make the two numbers differ.
public struct PairingHandshake: Sendable {
    private let privateKey: Curve25519.KeyAgreement.PrivateKey

    public init() {
        privateKey = Curve25519.KeyAgreement.PrivateKey()
    }

    /// A handshake with a fixed key, for checks that must replay the same way (the fuzz targets).
    package init(rawPrivateKey: Data) throws {
        privateKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: rawPrivateKey)
    }

    public var publicKey: Data { privateKey.publicKey.rawRepresentation }

    public struct Agreement: Sendable {
        let key: SymmetricKey
        /// Six digits as people read them: `4821-93`.
        public let confirmation: String

        public func seal(_ plaintext: Data, label: String) throws -> String {
            try RendezvousKeys.seal(plaintext, key: key, label: label)
        }

        public func open(_ sealed: String, label: String) throws -> Data {
            try RendezvousKeys.open(sealed, key: key, label: label)
        }
    }

    /// The agreement over `transcript`, one of whose keys is ours.
    ///
    /// - Throws: `CoreError.tampered` when neither key is ours, both are, the other is no X25519
    ///   key, or the claimant's key is not the one its claim committed to.
    public func agree(_ transcript: PairingTranscript) throws -> Agreement {
        let isInviter = transcript.inviterKey == publicKey, isClaimant = transcript.claimantKey == publicKey
        guard isInviter != isClaimant, transcript.isRevealMatchingCommitment,
              let theirs = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: isInviter ? transcript.claimantKey
                                                                                                : transcript.inviterKey),
              let shared = try? privateKey.sharedSecretFromKeyAgreement(with: theirs) else {
            throw CoreError.tampered(what: "the other device's pairing key")
        }
        let salt = Data(SHA256.hash(data: transcript.bytes))
        let key = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("key".utf8),
                                                 outputByteCount: 32)
        let check = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("confirm".utf8),
                                                   outputByteCount: 4)
        let number = check.withUnsafeBytes { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } } % 1_000_000
        let digits = String(format: "%06u", number)
        return Agreement(key: key, confirmation: "\(digits.prefix(4))-\(digits.suffix(2))")
    }
}
