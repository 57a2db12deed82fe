import Foundation

/// One device's record in the `devices` collection (architecture §9), as the server holds it.
///
/// Only `id`, `publicKey` and `capabilities` are in the clear; `box` seals the name and the public
/// key again under a key only the account's devices have, so a record the server (or anyone with
/// the account password) forged does not open and is shown as unverified.
public struct DeviceRecord: Sendable, Equatable, Codable {
    public var id: String
    /// The X25519 public key, base64 of its 32 raw bytes.
    public var publicKey: String
    public var capabilities: [String]
    /// AES-GCM (combined, base64) of `DeviceBox`, the device id as associated data.
    public var box: String
    /// The server's timestamp ("last seen"); nil in what is sent.
    public var lastModified: Int64?

    enum CodingKeys: String, CodingKey {
        case id, publicKey, capabilities, box
        case lastModified = "last_modified"
    }

    /// The topics every device of this version handles.
    public static let currentCapabilities = MessageTopic.allCases.map(\.rawValue)
}

/// What a device record seals.
struct DeviceBox: Codable {
    var name: String
    var publicKey: String
}

/// A device of the account as `device list` shows it.
public struct KnownDevice: Sendable, Equatable, Codable {
    public var id: String
    /// Nil when the record is unverified.
    public var name: String?
    public var publicKey: String
    public var capabilities: [String]
    /// The record's server timestamp.
    public var lastSeen: Timestamp
    public var isCurrent: Bool

    public var isVerified: Bool { name != nil }

    public init(id: String, name: String?, publicKey: String, capabilities: [String], lastSeen: Timestamp, isCurrent: Bool) {
        self.id = id
        self.name = name
        self.publicKey = publicKey
        self.capabilities = capabilities
        self.lastSeen = lastSeen
        self.isCurrent = isCurrent
    }
}

extension DeviceRecord {
    /// The JSON sent to the server (without `last_modified`, which the server keeps if sent).
    public func serverJSON() throws -> Data {
        var sent = self
        sent.lastModified = nil
        return try DeviceJSON.encoder.encode(sent)
    }

    /// A record from a listing; nil for one that is not a device record.
    public static func decode(_ data: Data) -> DeviceRecord? {
        try? DeviceJSON.decoder.decode(DeviceRecord.self, from: data)
    }
}

extension MessageRecord {
    /// A record from a listing; nil for one that is not a message.
    public static func decode(_ data: Data) -> MessageRecord? {
        try? DeviceJSON.decoder.decode(MessageRecord.self, from: data)
    }
}
