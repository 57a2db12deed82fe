import Crypto
import Foundation

/// A file's bytes sealed with its item's key (architecture §2), bound to the item and file ids:
/// moved to another item or file, the ciphertext fails to open. On the server it is cut into
/// chunks (`chunkSize`) so that no request is large.
public enum AttachmentSealing {
    static let collection = "attachments"
    /// Sealed bytes per chunk record: 512 KiB (about 700 KB of base64 in a request).
    public static let chunkSize = 512 * 1024
    /// The most chunks a file of `Attachment.sizeLimit` takes, with room for the envelope.
    public static let maximumChunks = (Attachment.sizeLimit + chunkSize - 1) / chunkSize + 1

    static func associatedID(item: String, attachment: String) -> String { "\(item)/\(attachment)" }

    static func seal(_ bytes: Data, item: String, attachment: String, ring: KeyRing) throws -> Data {
        guard let key = ring.withKey(for: item, { SymmetricKey(data: $0) }) else { throw CoreError.itemKeyMissing(id: item) }
        return try Envelope.seal(bytes, symmetricKey: key, collection: collection,
                                 id: associatedID(item: item, attachment: attachment))
    }

    /// The file's bytes, checked against its reference: size and SHA-256.
    static func open(_ sealed: Data, item: String, attachment: Attachment, ring: KeyRing) throws -> Data {
        // A file keeps the key it was sealed with: after a new generation, a retired one.
        let bytes = try ring.open(sealed, itemID: item, collection: collection, id: associatedID(item: item, attachment: attachment.id))
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
