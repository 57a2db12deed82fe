import Foundation

/// A shared vault's id, which is also the name of its Kinto bucket: `share-` and 128 random bits
/// in 26 lower-case base32 symbols (RFC 4648's alphabet, as `Base32` writes it).
///
/// Only the canonical spelling is valid: the last symbol carries 3 bits of the id and 2 zero
/// bits, so no two spellings name one vault.
public struct SharedVaultID: Sendable, Hashable, CustomStringConvertible {
    public static let prefix = "share-"
    static let symbolCount = 26
    static let byteCount = 16

    /// `share-…`, as the server names the bucket.
    public let bucket: String

    /// The id `bucket` spells; nil for anything not an id.
    public init?(bucket: String) {
        guard bucket.utf8.count == Self.prefix.utf8.count + Self.symbolCount, bucket.hasPrefix(Self.prefix) else { return nil }
        let symbols = bucket.utf8.dropFirst(Self.prefix.utf8.count)
        guard symbols.allSatisfy({ (97...122).contains($0) || (50...55).contains($0) }),
              let bytes = Base32.decode(String(decoding: symbols, as: UTF8.self)), bytes.count == Self.byteCount,
              Base32.encode(bytes).lowercased().utf8.elementsEqual(symbols) else { return nil }
        self.bucket = bucket
    }

    /// A new id for a vault about to be created.
    public static func random() -> SharedVaultID {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return SharedVaultID(unchecked: prefix + Base32.encode(bytes).lowercased())
    }

    private init(unchecked bucket: String) {
        self.bucket = bucket
    }

    public var description: String { bucket }
}
