import CSodium
import Crypto
import Foundation

/// A file's bytes sealed with its item's key (architecture §2), bound to the item and file ids:
/// moved to another item or file, the ciphertext fails to open. On the server it is cut into
/// chunks (`chunkSize`) so that no request is large.
///
/// Padding (since 2026-12-07): the envelope is followed by random bytes up to its size class
/// (`SizeClass.file`: 64, 128, 256 or 512 KiB, then a multiple of 512 KiB), so the server learns
/// the class, not the size; random, because zeros after the tag would show where it ends. The
/// envelope's own length is 29 bytes more than the file's size, which the item records: a reader
/// opens that prefix and ignores the rest, so an unpadded file (from an older version, or added
/// before the padding) opens as before. Format note: a version older than the padding opens the
/// whole padded bytes as the envelope, which fails authentication — it keeps the file and says it
/// was modified (`coffer attachment`, `export`), everything else it does is unchanged
/// (`AttachmentPaddingTests.testAnOlderVersionRefusesAPaddedFileAsModified`).
public enum AttachmentSealing {
    static let collection = "attachments"
    /// Sealed bytes per chunk record: 512 KiB (about 700 KB of base64 in a request).
    public static let chunkSize = 512 * 1024
    /// The most chunks a file of `Attachment.sizeLimit` takes, with room for the envelope.
    public static let maximumChunks = (Attachment.sizeLimit + chunkSize - 1) / chunkSize + 1

    static func associatedID(item: String, attachment: String) -> String { "\(item)/\(attachment)" }

    package static func seal(_ bytes: Data, item: String, attachment: String, ring: KeyRing) throws -> Data {
        guard let key = ring.withKey(for: item, { SymmetricKey(data: $0) }) else { throw CoreError.itemKeyMissing(id: item) }
        var sealed = try Envelope.seal(bytes, symmetricKey: key, collection: collection,
                                       id: associatedID(item: item, attachment: attachment))
        sealed.append(randomPadding(SizeClass.file(sealed.count) - sealed.count))
        return sealed
    }

    /// `count` random bytes: after the tag they look like the ciphertext before it. One call to
    /// libsodium for all of them (`SystemRandomNumberGenerator` asks the system 8 bytes at a time).
    static func randomPadding(_ count: Int) -> Data {
        var padding = Data(count: count)
        padding.withUnsafeMutableBytes { raw in
            Sodium.initialize()
            if let base = raw.baseAddress, raw.count > 0 { randombytes_buf(base, raw.count) }
        }
        return padding
    }

    /// The envelope inside `sealed` bytes of a file of `size` bytes: the padding after it dropped.
    /// Nil when the bytes are too short to hold it (never what Coffer wrote).
    package static func envelope(in sealed: Data, size: Int) -> Data? {
        guard size >= 0, size <= Attachment.sizeLimit, sealed.count >= Envelope.overhead + size else { return nil }
        return sealed.prefix(Envelope.overhead + size)
    }

    /// The file's bytes, checked against its reference: size and SHA-256.
    package static func open(_ sealed: Data, item: String, attachment: Attachment, ring: KeyRing) throws -> Data {
        guard let envelope = envelope(in: sealed, size: attachment.size) else {
            throw CoreError.tampered(what: "the file \(attachment.name) is shorter than its item says")
        }
        // A file keeps the key it was sealed with: after a new generation, a retired one.
        let bytes = try ring.open(envelope, itemID: item, collection: collection, id: associatedID(item: item, attachment: attachment.id))
        guard bytes.count == attachment.size, Attachment.digest(of: bytes) == attachment.sha256 else {
            throw CoreError.tampered(what: "the file \(attachment.name) does not match its item")
        }
        return bytes
    }

    /// How many chunk records `sealed` bytes take.
    public static func chunkCount(of sealedSize: Int) -> Int {
        max(1, (sealedSize + chunkSize - 1) / chunkSize)
    }
}
