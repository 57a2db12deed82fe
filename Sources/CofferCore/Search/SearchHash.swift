import Crypto
import Foundation

/// Keyed search hashes for origins and tags: an item can be found by origin without decrypting
/// everything, and the server learns only which records share an origin.
public enum SearchHash {
    public static func hash(_ value: String, key: SecureBuffer) -> String {
        key.withUnsafeBytes { keyBytes in
            hex(HMAC<SHA256>.authenticationCode(for: Data(value.utf8), using: SymmetricKey(data: keyBytes)))
        }
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Hex.lowercase(bytes)
    }

    /// `https://Example.com/login` and `example.com` are the same origin: the lower-cased host.
    public static func normalizedOrigin(_ origin: String) -> String {
        let trimmed = origin.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.contains("://"), let host = URLComponents(string: trimmed)?.host, !host.isEmpty {
            return host.lowercased()
        }
        let withoutPath = trimmed.split(separator: "/", maxSplits: 1).first.map(String.init) ?? trimmed
        return withoutPath.lowercased()
    }

    public static func normalizedTag(_ tag: String) -> String {
        tag.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
