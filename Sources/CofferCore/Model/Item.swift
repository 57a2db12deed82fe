import Foundation

/// A vault item in plaintext. It exists only in memory while the vault is unlocked.
public struct Item: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var title: String
    public var origins: [String]
    public var tags: [String]
    public var entry: Entry
    public var disabled: Bool
    public var created: Timestamp
    public var modified: Timestamp
    public var lastUsed: Timestamp?
    /// Newest first, at most `Item.historyLimit` entries.
    public var history: [HistoryEntry]
    /// When each single-valued field last changed (the Airmail journal); empty for items older than that.
    public var times: FieldTimes
    /// Files kept with the item, in the order added (their bytes live apart: `Attachment`).
    public var attachments: [Attachment]
    /// Members a newer version wrote that this one does not know, kept as they came so an edit
    /// here never drops them (architecture §2).
    public var extra: [String: JSONValue]

    public static let historyLimit = 100

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, title, origins, tags, entry, disabled, created, modified, history, times, attachments
        case lastUsed = "last_used"
    }

    public init(id: String = Item.newID(), title: String, origins: [String] = [], tags: [String] = [],
                entry: Entry = Entry(), disabled: Bool = false, created: Timestamp, modified: Timestamp? = nil,
                lastUsed: Timestamp? = nil, history: [HistoryEntry] = [], times: FieldTimes = FieldTimes(),
                attachments: [Attachment] = [], extra: [String: JSONValue] = [:]) {
        self.id = id
        self.title = title
        self.origins = origins
        self.tags = tags
        self.entry = entry
        self.disabled = disabled
        self.created = created
        self.modified = modified ?? created
        self.lastUsed = lastUsed
        self.history = history
        self.times = times
        self.attachments = attachments
        self.extra = extra
    }

    // `times` is left out when empty, as the hand-written codec does: items sealed before field
    // times existed read and write back unchanged.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id),
                  title: try container.decode(String.self, forKey: .title),
                  origins: try container.decode([String].self, forKey: .origins),
                  tags: try container.decode([String].self, forKey: .tags),
                  entry: try container.decode(Entry.self, forKey: .entry),
                  disabled: try container.decode(Bool.self, forKey: .disabled),
                  created: try container.decode(Timestamp.self, forKey: .created),
                  modified: try container.decode(Timestamp.self, forKey: .modified),
                  lastUsed: try container.decodeIfPresent(Timestamp.self, forKey: .lastUsed),
                  history: try container.decode([HistoryEntry].self, forKey: .history),
                  times: try container.decodeIfPresent(FieldTimes.self, forKey: .times) ?? FieldTimes(),
                  attachments: try container.decodeIfPresent([Attachment].self, forKey: .attachments) ?? [],
                  extra: try JSONMemberKey.unknownMembers(of: decoder, known: Set(CodingKeys.allCases.map(\.rawValue))))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(origins, forKey: .origins)
        try container.encode(tags, forKey: .tags)
        try container.encode(entry, forKey: .entry)
        try container.encode(disabled, forKey: .disabled)
        try container.encode(created, forKey: .created)
        try container.encode(modified, forKey: .modified)
        try container.encodeIfPresent(lastUsed, forKey: .lastUsed)
        try container.encode(history, forKey: .history)
        if !times.isEmpty { try container.encode(times, forKey: .times) }
        if !attachments.isEmpty { try container.encode(attachments, forKey: .attachments) }
        var others = encoder.container(keyedBy: JSONMemberKey.self)
        for (name, value) in extra { try others.encode(value, forKey: JSONMemberKey(name)) }
    }

    /// A new client-generated id (UUID v4, lowercase): unique without asking the server.
    public static func newID() -> String { UUID().uuidString.lowercased() }

    /// Replaces the entry, recording in history a patch that turns the new entry back into the old.
    /// An unchanged entry adds no history.
    public mutating func replaceEntry(with newEntry: Entry, at now: Timestamp) {
        replace(entry: newEntry, tags: tags, at: now)
    }

    /// Replaces the entry and the tags, recording in one history entry what each was before (the
    /// tags only when they changed, as a set: their order is not a change). Nothing changed, no history.
    public mutating func replace(entry newEntry: Entry, tags newTags: [String], at now: Timestamp) {
        let tagsChanged = Set(newTags) != Set(tags)
        guard newEntry != entry || tagsChanged else {
            tags = newTags
            return
        }
        let patch = newEntry == entry ? JSONValue.object([:]) : MergePatch.diff(from: newEntry.jsonValue, to: entry.jsonValue)
        history.insert(HistoryEntry(created: now, patch: patch, tags: tagsChanged ? tags : nil), at: 0)
        if history.count > Item.historyLimit { history.removeLast(history.count - Item.historyLimit) }
        entry = newEntry
        tags = newTags
    }
}

/// What an item holds besides its title, origins and tags: its kind, the kind's fields, notes and
/// custom fields. A login's fields have their own properties (they predate kinds); every other
/// kind's fields are in `fields`, by name. In the item's JSON all of them are members of `entry`.
public struct Entry: Sendable, Equatable {
    public var kind: String
    public var username: String
    public var password: String
    public var notes: String
    public var totp: String?
    /// The kind's other fields by name (a card's `number`), and text members a newer kind wrote.
    public var fields: [String: String]
    /// The user's own fields, in the order shown.
    public var custom: [CustomField]
    /// Members of other types a newer version wrote, kept as they came.
    public var extra: [String: JSONValue]

    public static let loginKind = "login"

    public init(kind: String = Entry.loginKind, username: String = "", password: String = "", notes: String = "",
                totp: String? = nil, fields: [String: String] = [:], custom: [CustomField] = [],
                extra: [String: JSONValue] = [:]) {
        self.kind = kind
        self.username = username
        self.password = password
        self.notes = notes
        self.totp = totp
        self.fields = fields
        self.custom = custom
        self.extra = extra
    }

    /// A field of the kind by name, wherever it is kept: a login's in its own property, any other's
    /// in `fields`. Setting "" or nil clears it.
    public subscript(field name: String) -> String? {
        get {
            switch name {
            case "username": return username
            case "password": return password
            case "notes": return notes
            case "totp": return totp
            default: return fields[name]
            }
        }
        set {
            switch name {
            case "username": username = newValue ?? ""
            case "password": password = newValue ?? ""
            case "notes": notes = newValue ?? ""
            case "totp": totp = newValue.flatMap { $0.isEmpty ? nil : $0 }
            default: fields[name] = newValue.flatMap { $0.isEmpty ? nil : $0 }
            }
        }
    }

    /// The entry as a JSON object (absent `totp` and empty `custom` left out), the shape merge
    /// patches apply to.
    public var jsonValue: JSONValue {
        var members = extra
        for (name, value) in fields { members[name] = .string(value) }
        members["kind"] = .string(kind)
        members["username"] = .string(username)
        members["password"] = .string(password)
        members["notes"] = .string(notes)
        if let totp { members["totp"] = .string(totp) }
        if !custom.isEmpty { members["custom"] = .array(custom.map(\.jsonValue)) }
        return .object(members)
    }

    /// Rebuilds an entry from its JSON object; nil when a known member has the wrong type. Other
    /// text members are the kind's fields; members of other types are kept in `extra`.
    public init?(jsonValue: JSONValue) {
        guard let members = jsonValue.objectValue else { return nil }
        var entry = Entry()
        for (name, value) in members {
            switch (name, value) {
            case (_, .null): continue
            case ("kind", .string(let text)): entry.kind = text
            case ("username", .string(let text)): entry.username = text
            case ("password", .string(let text)): entry.password = text
            case ("notes", .string(let text)): entry.notes = text
            case ("totp", .string(let text)): entry.totp = text
            case ("custom", .array(let elements)):
                var custom: [CustomField] = []
                for element in elements {
                    guard let field = CustomField(jsonValue: element) else { return nil }
                    custom.append(field)
                }
                entry.custom = custom
            case (let other, .string(let text)) where !ItemKind.entryMembers.contains(other): entry.fields[other] = text
            case (let other, _) where !ItemKind.entryMembers.contains(other): entry.extra[other] = value
            default: return nil
            }
        }
        self = entry
    }

    /// The names of the login fields that merge and review compare one by one.
    public static let fieldNames = ["kind", "username", "password", "notes", "totp"]
}

extension Entry: Codable {
    public init(from decoder: Decoder) throws {
        let value = try JSONValue(from: decoder)
        guard let members = value.objectValue else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "entry is not an object"))
        }
        for required in ["kind", "username", "password", "notes"] where members[required] == nil {
            throw DecodingError.keyNotFound(JSONMemberKey(required), .init(codingPath: decoder.codingPath,
                                                                           debugDescription: "entry lacks \(required)"))
        }
        guard let entry = Entry(jsonValue: value) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "entry has a member of the wrong type"))
        }
        self = entry
    }

    public func encode(to encoder: Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}

/// Any member name, for the members a `CodingKeys` enum does not list.
struct JSONMemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// The members of the object `decoder` holds that are not in `known`.
    static func unknownMembers(of decoder: Decoder, known: Set<String>) throws -> [String: JSONValue] {
        let container = try decoder.container(keyedBy: JSONMemberKey.self)
        var members: [String: JSONValue] = [:]
        for key in container.allKeys where !known.contains(key.stringValue) {
            members[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
        return members
    }
}

/// One step back in an item's history: applying `patch` to the entry gives its previous state.
public struct HistoryEntry: Codable, Sendable, Equatable {
    public var created: Timestamp
    /// A merge patch that turns the entry after the change back into the one before (`{}` when
    /// the change touched only the tags).
    public var patch: JSONValue
    /// The item's tags before the change; nil when the change left them alone. Tags are not in
    /// the entry, so a patch cannot hold them. An older reader skips the member (unknown members
    /// of a history entry are skipped) and lists the change as "no change recorded".
    public var tags: [String]?

    public init(created: Timestamp, patch: JSONValue, tags: [String]? = nil) {
        self.created = created
        self.patch = patch
        self.tags = tags
    }

    /// Whether `other` records the same change (when aside).
    public func saysTheSame(as other: HistoryEntry) -> Bool { patch == other.patch && tags == other.tags }
}
