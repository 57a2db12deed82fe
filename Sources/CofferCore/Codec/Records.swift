import Foundation

/// What is stored and synced for an item: search hashes, the `active` flag and the ciphertext.
///
/// A removal is the same id with `isDeleted`. Since 2026-12-07 it is *sealed* (`RemovalSealing`):
/// `encrypted` holds a removal marker sealed under the item's key (and, in a shared vault, the
/// writer's `signature`), so only a holder of the key writes one; a removal without it is what a
/// plain Kinto `DELETE` leaves (a tombstone), which devices refuse (issue 41). An older version
/// reads `deleted` first and takes a sealed removal as the removal it always knew.
public struct ItemRecord: Sendable, Equatable, Codable {
    public var id: String
    public var isActive: Bool
    /// HMAC-SHA-256 of each normalised origin, hex.
    public var originHashes: [String]
    public var tagHashes: [String]
    /// The sealed item (`Envelope`), base64.
    public var encrypted: String
    /// The server's timestamp; 0 if never synced.
    public var lastModified: Int64
    public var isDeleted: Bool
    /// In a shared vault, the member who wrote this version and their signature over it
    /// (`ItemSignature`, base64; issue 42); nil in a personal vault and on versions written before
    /// 2026-12-07. An older version skips the member and writes its versions without one.
    public var signature: String?

    public init(id: String, isActive: Bool, originHashes: [String], tagHashes: [String], encrypted: String,
                lastModified: Int64, signature: String? = nil) {
        self.id = id
        self.isActive = isActive
        self.originHashes = originHashes
        self.tagHashes = tagHashes
        self.encrypted = encrypted
        self.lastModified = lastModified
        self.isDeleted = false
        self.signature = signature
    }

    /// A removal sealed by a key holder (`RemovalSealing`), not a plain tombstone.
    public var isSealedRemoval: Bool { isDeleted && !encrypted.isEmpty }

    /// A removal without a seal: what a Kinto `DELETE` (or a version before 2026-12-07) leaves.
    public var isPlainTombstone: Bool { isDeleted && encrypted.isEmpty }

    public static func tombstone(id: String, lastModified: Int64) -> ItemRecord {
        var record = ItemRecord(id: id, isActive: false, originHashes: [], tagHashes: [], encrypted: "",
                                lastModified: lastModified)
        record.isDeleted = true
        return record
    }

    enum CodingKeys: String, CodingKey {
        case id, active, origins, tags, encrypted, deleted, signature
        case lastModified = "last_modified"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        lastModified = try container.decodeIfPresent(Int64.self, forKey: .lastModified) ?? 0
        // The same range as `ItemRecordJSON`, which reads every stored and downloaded record: a
        // record this accepted but that refused would be written and then never read back.
        guard lastModified.magnitude <= JSONScanner.largestWholeNumber.magnitude else {
            throw DecodingError.dataCorruptedError(forKey: .lastModified, in: container,
                                                   debugDescription: "last_modified is not a whole number below 2^53")
        }
        isDeleted = try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
        if isDeleted {
            isActive = false
            originHashes = []
            tagHashes = []
            encrypted = try container.decodeIfPresent(String.self, forKey: .encrypted) ?? ""
            signature = try container.decodeIfPresent(String.self, forKey: .signature)
        } else {
            isActive = try container.decode(String.self, forKey: .active) == "active"
            originHashes = try container.decode([String].self, forKey: .origins)
            tagHashes = try container.decode([String].self, forKey: .tags)
            encrypted = try container.decode(String.self, forKey: .encrypted)
            signature = try container.decodeIfPresent(String.self, forKey: .signature)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(lastModified, forKey: .lastModified)
        if isDeleted {
            try container.encode(true, forKey: .deleted)
            if !encrypted.isEmpty { try container.encode(encrypted, forKey: .encrypted) }
            try container.encodeIfPresent(signature, forKey: .signature)
        } else {
            try container.encode(isActive ? "active" : "", forKey: .active)
            try container.encode(originHashes, forKey: .origins)
            try container.encode(tagHashes, forKey: .tags)
            try container.encode(encrypted, forKey: .encrypted)
            try container.encodeIfPresent(signature, forKey: .signature)
        }
    }
}

/// What deriving a keystore's passphrase keys needs (`KeystoreRecord` without its key ring).
package struct KeystoreWrapping: Sendable, Equatable, Decodable {
    package var kdf: KDFParameters
    package var verifier: String
}

/// The keystore record (id `default`).
///
/// `encrypted` is the key ring sealed under the vault key; `wrappedKey` is the vault key sealed
/// under the passphrase's wrapping key; `kdf` and `verifier` are in the clear (a new device needs
/// them). Two layers so a passphrase change re-wraps one key: a device still unlocked with the old
/// passphrase can go on opening and merging key rings from the server.
public struct KeystoreRecord: Sendable, Equatable, Codable {
    public var id: String
    public var kdf: KDFParameters
    public var verifier: String
    public var wrappedKey: String
    public var encrypted: String
    public var lastModified: Int64
    public var isDeleted: Bool
    /// When this passphrase wrapping was made (ms), bound to it by `wrappingTag`; 0 for a record
    /// written before wrappings were bound (2026-12-07), whose wrapping nothing authenticates.
    public var wrappingRevision: Int64
    /// HMAC under a key derived from the vault key over the wrapping and its revision
    /// (`KeystoreWrappingTag`): the server cannot pair an old wrapping with a new ring, nor make
    /// one look newer. Older versions ignore both members and drop them when they write.
    public var wrappingTag: String?
    /// The wrapping vouched for by the vault keys before a device's removal (`KeystoreSuccession`);
    /// nil before one. Older versions ignore the member and drop it when they write.
    public var succession: [String]?

    public init(kdf: KDFParameters, verifier: String, wrappedKey: String, encrypted: String, lastModified: Int64,
                wrappingRevision: Int64 = 0, wrappingTag: String? = nil) {
        self.id = CollectionName.keystoreID
        self.kdf = kdf
        self.verifier = verifier
        self.wrappedKey = wrappedKey
        self.encrypted = encrypted
        self.lastModified = lastModified
        self.isDeleted = false
        self.wrappingRevision = wrappingRevision
        self.wrappingTag = wrappingTag
    }

    /// Whether both records wrap the vault key under the same passphrase.
    public func hasSameWrapping(as other: KeystoreRecord) -> Bool {
        kdf == other.kdf && verifier == other.verifier
    }

    /// Whether both records carry the very same wrapping, tag included.
    public func hasSameTaggedWrapping(as other: KeystoreRecord) -> Bool {
        hasSameWrapping(as: other) && wrappedKey == other.wrappedKey && wrappingTag == other.wrappingTag
            && wrappingRevision == other.wrappingRevision
    }

    enum CodingKeys: String, CodingKey {
        case id, kdf, verifier, encrypted, deleted
        case wrappedKey = "wrapped_key"
        case lastModified = "last_modified"
        case wrappingRevision = "wrapping_revision"
        case wrappingTag = "wrapping_tag"
        case succession
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        lastModified = try container.decodeIfPresent(Int64.self, forKey: .lastModified) ?? 0
        isDeleted = try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
        // A stranger's bytes: a member of the wrong type reads as no binding, never as a failure,
        // and a revision without a tag as none (what `encode` writes back).
        wrappingTag = isDeleted ? nil : (try? container.decodeIfPresent(String.self, forKey: .wrappingTag)) ?? nil
        wrappingRevision = wrappingTag == nil ? 0 : ((try? container.decodeIfPresent(Int64.self, forKey: .wrappingRevision)) ?? nil) ?? 0
        // At most a tag per earlier generation a vault could have had; anything else reads as none.
        let succession = isDeleted ? nil : (try? container.decodeIfPresent([String].self, forKey: .succession)) ?? nil
        self.succession = succession.flatMap { $0.count <= 64 && $0.allSatisfy { $0.utf8.count <= 64 } ? $0 : nil }
        if isDeleted {
            kdf = KDFParameters(memory: 0, iterations: 0, salt: "")
            verifier = ""
            wrappedKey = ""
            encrypted = ""
        } else {
            kdf = try container.decode(KDFParameters.self, forKey: .kdf)
            verifier = try container.decode(String.self, forKey: .verifier)
            wrappedKey = try container.decode(String.self, forKey: .wrappedKey)
            encrypted = try container.decode(String.self, forKey: .encrypted)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(lastModified, forKey: .lastModified)
        if isDeleted {
            try container.encode(true, forKey: .deleted)
        } else {
            try container.encode(kdf, forKey: .kdf)
            try container.encode(verifier, forKey: .verifier)
            try container.encode(wrappedKey, forKey: .wrappedKey)
            try container.encode(encrypted, forKey: .encrypted)
            if let wrappingTag {
                try container.encode(wrappingRevision, forKey: .wrappingRevision)
                try container.encode(wrappingTag, forKey: .wrappingTag)
            }
            if let succession { try container.encode(succession, forKey: .succession) }
        }
    }
}

/// JSON coding for records, shared so every place writes the same bytes. Item records, by far
/// the most numerous, go through the hand-written `ItemRecordJSON`.
public enum RecordCoding {
    public static func encode<Record: Encodable>(_ record: Record) throws -> String {
        if let item = record as? ItemRecord { return ItemRecordJSON.encode(item) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(record), as: UTF8.self)
    }

    public static func decode<Record: Decodable>(_ type: Record.Type, from text: String) throws -> Record {
        if type == ItemRecord.self {
            var text = text
            return try text.withUTF8 { try ItemRecordJSON.decode($0) } as! Record
        }
        return try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    public static func decode<Record: Decodable>(_ type: Record.Type, from data: Data) throws -> Record {
        if type == ItemRecord.self {
            return try data.withUnsafeBytes { try ItemRecordJSON.decode($0.assumingMemoryBound(to: UInt8.self)) } as! Record
        }
        return try JSONDecoder().decode(type, from: data)
    }
}
