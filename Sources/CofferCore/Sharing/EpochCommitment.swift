import Crypto
import Foundation

/// What a roster entry says about its epoch's key without revealing it (architecture §17):
/// SHA-256 of the label `coffer/v1/epoch`, the epoch number (8 bytes, big-endian) and the 32-byte key.
///
/// A member who opens the key sealed to them checks it against the commitment in the entry that
/// began the epoch, so a server cannot hand out a key of its own; the number is bound in so that
/// one key cannot pass for another epoch's.
public enum EpochCommitment {
    public static let keyLength = 32
    static let label = Data("coffer/v1/epoch".utf8)

    /// The commitment to `key` as the key of `epoch`.
    public static func commitment(epoch: UInt64, key: SecureBuffer) -> Data {
        var hasher = SHA256()
        hasher.update(data: label)
        withUnsafeBytes(of: epoch.bigEndian) { hasher.update(bufferPointer: $0) }
        key.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return Data(hasher.finalize())
    }

    /// Whether `key` is the 32-byte key `commitment` was made to for `epoch`.
    public static func matches(_ commitment: Data, epoch: UInt64, key: SecureBuffer) -> Bool {
        key.count == keyLength && Self.commitment(epoch: epoch, key: key) == commitment
    }
}
