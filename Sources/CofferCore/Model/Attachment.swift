import Crypto
import Foundation

/// A file kept with an item (architecture §2): what the item's sealed JSON says of it. The bytes
/// are sealed apart (`AttachmentSealing`), stored in the `attachments` table and synced in chunks
/// of their own collection (§4); the item holds only this reference.
public struct Attachment: Sendable, Equatable, Codable, Identifiable {
    public var id: String
    /// The file name as given (no path); shown through `TerminalText`, never used as a path.
    public var name: String
    /// Bytes of the plaintext.
    public var size: Int
    /// SHA-256 of the plaintext, lower-case hex: checked every time the file is opened.
    public var sha256: String
    public var added: Timestamp

    /// 16 MiB: the most one attachment may hold.
    public static let sizeLimit = 16 << 20
    /// The most attachments one item may carry.
    public static let countLimit = 100

    public init(id: String = Item.newID(), name: String, size: Int, sha256: String, added: Timestamp) {
        self.id = id
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.added = added
    }

    /// The reference to `bytes` named `name`.
    public init(name: String, bytes: Data, added: Timestamp) {
        self.init(name: name, size: bytes.count, sha256: Self.digest(of: bytes), added: added)
    }

    static func digest(of bytes: Data) -> String {
        Hex.lowercase(SHA256.hash(data: bytes))
    }

    /// The sentence for a file over `sizeLimit`.
    public static func tooLarge(_ size: Int) -> String {
        "The file is \(size) bytes; an attachment holds at most 16 MiB (\(sizeLimit) bytes)."
    }
}
