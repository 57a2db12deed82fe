import Crypto
import Foundation

/// A person of a shared vault as the roster records them (architecture §17): their public keys,
/// the name they chose and the Kinto account their devices sync with.
///
/// The id is not chosen: it is the first 16 bytes of SHA-256 of the signing key, in lower-case
/// hex, so an id names exactly one signing key and a roster entry cannot give a known id a key of
/// someone else's.
public struct Person: Sendable, Hashable {
    public static let keyLength = 32
    public static let nameLimit = 200
    public static let accountLimit = 200
    /// The length of an id: 16 bytes in hex.
    public static let idLength = 32

    public let id: String
    /// Shown through `TerminalText`: it is whatever the person typed.
    public let name: String
    /// The raw Ed25519 public key that signs their roster entries.
    public let signingKey: Data
    /// The raw X25519 public key epoch keys are sealed to.
    public let sealingKey: Data
    /// Their Kinto account name (`account:NAME` in the bucket's `members` group).
    public let account: String

    public enum Problem: Error, Equatable, Sendable {
        case name
        case account
        case keyLength
    }

    /// A person with valid fields: a name of 1 to 200 bytes without NUL, an account of 1 to 200
    /// letters, digits, `-`, `_`, `.` or `@`, and keys of 32 bytes.
    public init(name: String, signingKey: Data, sealingKey: Data, account: String) throws(Problem) {
        guard signingKey.count == Self.keyLength, sealingKey.count == Self.keyLength else { throw .keyLength }
        guard Self.isValidName(name.utf8) else { throw .name }
        guard Self.isValidAccount(account.utf8) else { throw .account }
        id = Self.id(ofSigningKey: signingKey)
        self.name = name
        // Copied so that a slice of a larger buffer does not keep its indices.
        self.signingKey = Data(signingKey)
        self.sealingKey = Data(sealingKey)
        self.account = account
    }

    /// The id of whoever holds the private half of `signingKey`.
    public static func id(ofSigningKey signingKey: Data) -> String {
        Hex.lowercase(SHA256.hash(data: signingKey).prefix(idLength / 2))
    }

    /// Whether `text` has the form of an id (it may still name no one).
    public static func isValidID<Bytes: Collection<UInt8>>(utf8 text: Bytes) -> Bool {
        text.count == idLength && text.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func isValidName<Bytes: Collection<UInt8>>(_ utf8: Bytes) -> Bool {
        (1...nameLimit).contains(utf8.count) && !utf8.contains(0)
    }

    static func isValidAccount<Bytes: Collection<UInt8>>(_ utf8: Bytes) -> Bool {
        (1...accountLimit).contains(utf8.count) && utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@")].contains(byte)
        }
    }
}

extension Person.Problem: CustomStringConvertible {
    public var description: String {
        switch self {
        case .name: return "A person's name must be 1 to \(Person.nameLimit) bytes of text without NUL characters."
        case .account:
            return "An account name must be 1 to \(Person.accountLimit) letters, digits, dashes, underscores, dots or @."
        case .keyLength: return "A person's public keys must be \(Person.keyLength) bytes each."
        }
    }
}
