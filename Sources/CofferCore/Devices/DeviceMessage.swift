import Foundation

/// What one device can ask another (architecture §9), with how long the request stays valid.
public enum MessageTopic: String, Sendable, CaseIterable, Codable {
    /// Lock the screen there (unless it was unlocked after the message was sent).
    case lock
    /// Forget the sync credentials there and lock.
    case signout
    /// The account's new password after `device rm --rotate`.
    case credentials

    /// Milliseconds from sending to expiry.
    public var lifetime: Int64 {
        switch self {
        case .lock: return 15 * 60 * 1000
        case .signout, .credentials: return 30 * 24 * 3600 * 1000
        }
    }

    /// How long a handled id must be remembered to recognise any replay of it.
    public static let longestLifetime: Int64 = allCases.map(\.lifetime).max() ?? 0
}

/// A message record in the `messages` collection: only the ids and the expiry are in the clear.
public struct MessageRecord: Sendable, Equatable, Codable {
    public var id: String
    public var recipient: String
    public var sender: String
    /// Milliseconds since 1970 after which the message is deleted unread.
    public var expires: Int64
    /// HPKE's encapsulated key, base64.
    public var enc: String
    /// HPKE ciphertext of `MessageContent`, base64.
    public var ciphertext: String

    public init(id: String, recipient: String, sender: String, expires: Int64, enc: String, ciphertext: String) {
        self.id = id
        self.recipient = recipient
        self.sender = sender
        self.expires = expires
        self.enc = enc
        self.ciphertext = ciphertext
    }

    /// The JSON text stored in the outbox and inbox, and sent (no `last_modified`).
    public func text() throws -> String {
        String(decoding: try DeviceJSON.encoder.encode(self), as: UTF8.self)
    }

    public static func decode(_ text: String) throws -> MessageRecord {
        try DeviceJSON.decoder.decode(MessageRecord.self, from: Data(text.utf8))
    }
}

/// The sealed part of a message.
public struct MessageContent: Sendable, Equatable, Codable {
    public var topic: MessageTopic
    /// Topic-specific text (the new password for `credentials`); empty otherwise.
    public var data: String
    public var created: Int64
    public var expires: Int64

    public init(topic: MessageTopic, data: String = "", created: Timestamp) {
        self.topic = topic
        self.data = data
        self.created = created.milliseconds
        self.expires = created.milliseconds + topic.lifetime
    }

    /// Largest sealed content: a message is a request, not a file transfer.
    public static let maximumBytes = 4096
}

/// The remote lock this device last obeyed, shown on the lock screen.
public struct DeviceLockNotice: Sendable, Equatable, Codable {
    public var from: String
    public var at: Timestamp

    public init(from: String, at: Timestamp) {
        self.from = from
        self.at = at
    }
}

/// One JSON form for the device records and messages (sorted keys: stable bytes).
package enum DeviceJSON {
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    package static let decoder = JSONDecoder()
}
