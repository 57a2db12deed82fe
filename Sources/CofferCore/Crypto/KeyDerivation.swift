import Crypto
import Foundation

/// From the passphrase to the keys that open a vault (architecture §2).
///
/// passphrase → Argon2id → root key → HKDF-SHA-256 → *wrapping key* (seals the keystore) and
/// *verifier key* (proves the passphrase right before any decryption is tried, so a wrong
/// passphrase and tampered data are told apart). The hashing key for search hashes is random and
/// lives inside the keystore, so changing the passphrase does not change every item's hashes.
public struct PassphraseKeys: Sendable {
    public let wrappingKey: SecureBuffer
    public let verifier: String

    /// Stretches the passphrase (passphrase, salt, memory, iterations) in place of `Argon2id.derive`:
    /// a test hook, never bound by the product, where it is nil and Argon2id runs every time.
    ///
    /// The randomized sync histories bind a memo of the real Argon2id here: their three devices
    /// unlock one vault with one passphrase and salt many times, and Argon2id at its floor (64 MiB)
    /// was a third of their CPU time. A task-local, so only the task that binds it (and its child
    /// tasks) sees it, never another test running beside it.
    @TaskLocal package static var stretching: (@Sendable (SecureBuffer, Data, Int, Int) throws -> SecureBuffer)?

    static let wrappingInfo = "coffer/v1/keystore-wrapping"
    static let verifierInfo = "coffer/v1/passphrase-verifier"

    public init(passphrase: SecureBuffer, parameters: KDFParameters) throws {
        guard let salt = Data(base64Encoded: parameters.salt) else {
            throw CoreError.tampered(what: "the key-derivation salt is not base64")
        }
        let root: SecureBuffer
        if let stretching = Self.stretching {
            root = try stretching(passphrase, salt, parameters.memory, parameters.iterations)
        } else {
            root = try Argon2id.derive(passphrase: passphrase, salt: salt, memory: parameters.memory,
                                       iterations: parameters.iterations)
        }
        wrappingKey = HKDFSHA256.derive(inputKey: root, info: Self.wrappingInfo, length: 32)
        let verifierKey = HKDFSHA256.derive(inputKey: root, info: Self.verifierInfo, length: 32)
        verifier = verifierKey.withUnsafeBytes { key in
            Data(HMAC<SHA256>.authenticationCode(for: Data("coffer passphrase check".utf8),
                                                 using: SymmetricKey(data: key))).base64EncodedString()
        }
    }

    private init(wrappingKey: SecureBuffer, verifier: String) {
        self.wrappingKey = wrappingKey
        self.verifier = verifier
    }

    /// The same keys in a buffer of their own: a vault wipes its session's keys when it locks, so
    /// keys kept for another vault (the screen's one unlock) must not be those.
    public func copied() -> PassphraseKeys {
        PassphraseKeys(wrappingKey: wrappingKey.withUnsafeBytes { SecureBuffer(copying: $0) }, verifier: verifier)
    }

    /// Constant-time check of a stored verifier against this passphrase's.
    public func matches(verifier stored: String) -> Bool {
        guard let expected = Data(base64Encoded: verifier), let given = Data(base64Encoded: stored),
              expected.count == given.count else { return false }
        return SecureBuffer(copying: expected).isEqual(to: SecureBuffer(copying: given))
    }
}

/// HKDF-SHA-256 (RFC 5869) into locked memory.
public enum HKDFSHA256 {
    public static func derive(inputKey: SecureBuffer, salt: Data = Data(), info: String, length: Int) -> SecureBuffer {
        derive(inputKey: inputKey, salt: salt, info: Data(info.utf8), length: length)
    }

    public static func derive(inputKey: SecureBuffer, salt: Data, info: Data, length: Int) -> SecureBuffer {
        let key = inputKey.withUnsafeBytes { SymmetricKey(data: $0) }
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt, info: info, outputByteCount: length)
        return derived.withUnsafeBytes { SecureBuffer(copying: $0) }
    }
}
