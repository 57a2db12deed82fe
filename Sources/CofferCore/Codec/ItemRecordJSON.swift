import Foundation

/// `ItemRecord` as JSON, by hand on `JSONScanner` and `ItemJSONWriter`: the same bytes as
/// `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]`, and the same records read back as
/// `ItemRecord`'s `Decodable` conformance (which stays, for anything generic). Every pending
/// change, every listed-but-unsynced item and every downloaded record goes through it.
enum ItemRecordJSON {
    static func encode(_ record: ItemRecord) -> String {
        var writer = ItemJSONWriter(capacity: 160 + record.encrypted.utf8.count + (record.signature?.utf8.count ?? 0) + 65 * (record.originHashes.count + record.tagHashes.count))
        if record.isDeleted {
            writer.raw(#"{"deleted":true"#)
            if record.isSealedRemoval {
                writer.raw(#","encrypted":"#)
                writer.string(record.encrypted)
            }
            writer.raw(#","id":"#)
            writer.string(record.id)
            writer.raw(#","last_modified":"#)
            writer.integer(record.lastModified)
            if let signature = record.signature {
                writer.raw(#","signature":"#)
                writer.string(signature)
            }
            writer.raw("}")
        } else {
            writer.raw(#"{"active":"#)
            writer.string(record.isActive ? "active" : "")
            writer.raw(#","encrypted":"#)
            writer.string(record.encrypted)
            writer.raw(#","id":"#)
            writer.string(record.id)
            writer.raw(#","last_modified":"#)
            writer.integer(record.lastModified)
            writer.raw(#","origins":"#)
            writer.strings(record.originHashes)
            if let signature = record.signature {
                writer.raw(#","signature":"#)
                writer.string(signature)
            }
            writer.raw(#","tags":"#)
            writer.strings(record.tagHashes)
            writer.raw("}")
        }
        return String(decoding: writer.takeBytes(), as: UTF8.self)
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws -> ItemRecord {
        var scanner = JSONScanner(bytes)
        var id: String?, active: String?, origins: [String]?, tags: [String]?, encrypted: String?
        var lastModified: Int64?, deleted: Bool?, signature: String?
        var members = try MemberLoop<RecordMember>(&scanner, "an item record")
        while let name = try members.next(&scanner) {
            switch name {
            case .id: id = try scanner.readString("id")
            case .active: active = try scanner.readString("active")
            case .origins: origins = try ItemJSONReader.readStrings(&scanner, "origins")
            case .tags: tags = try ItemJSONReader.readStrings(&scanner, "tags")
            case .encrypted: encrypted = try scanner.readString("encrypted")
            case .lastModified: lastModified = try scanner.skipNull() ? nil : try scanner.readWholeNumber("last_modified")
            case .deleted: deleted = try scanner.skipNull() ? nil : try scanner.readBool()
            case .signature: signature = try scanner.skipNull() ? nil : try scanner.readString("signature")
            }
        }
        try scanner.expectEnd()
        guard let id else { throw ItemJSONError.missingMember("id") }
        if deleted == true {
            var removal = ItemRecord.tombstone(id: id, lastModified: lastModified ?? 0)
            removal.encrypted = encrypted ?? ""
            removal.signature = signature
            return removal
        }
        guard let active else { throw ItemJSONError.missingMember("active") }
        guard let origins else { throw ItemJSONError.missingMember("origins") }
        guard let tags else { throw ItemJSONError.missingMember("tags") }
        guard let encrypted else { throw ItemJSONError.missingMember("encrypted") }
        return ItemRecord(id: id, isActive: active == "active", originHashes: origins, tagHashes: tags,
                          encrypted: encrypted, lastModified: lastModified ?? 0, signature: signature)
    }
}

enum RecordMember: Int, ItemJSONMember {
    case id, active, origins, tags, encrypted, lastModified, deleted, signature

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        switch bytes.count {
        case 2 where spells(bytes, "id"): self = .id
        case 4 where spells(bytes, "tags"): self = .tags
        case 6 where spells(bytes, "active"): self = .active
        case 7 where spells(bytes, "origins"): self = .origins
        case 7 where spells(bytes, "deleted"): self = .deleted
        case 9 where spells(bytes, "encrypted"): self = .encrypted
        case 9 where spells(bytes, "signature"): self = .signature
        case 13 where spells(bytes, "last_modified"): self = .lastModified
        default: return nil
        }
    }

    var name: String { self == .lastModified ? "last_modified" : "\(self)" }
}
