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

    public static let historyLimit = 100

    enum CodingKeys: String, CodingKey {
        case id, title, origins, tags, entry, disabled, created, modified, history, times
        case lastUsed = "last_used"
    }

    public init(id: String = Item.newID(), title: String, origins: [String] = [], tags: [String] = [],
                entry: Entry = Entry(), disabled: Bool = false, created: Timestamp, modified: Timestamp? = nil,
                lastUsed: Timestamp? = nil, history: [HistoryEntry] = [], times: FieldTimes = FieldTimes()) {
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
                  times: try container.decodeIfPresent(FieldTimes.self, forKey: .times) ?? FieldTimes())
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
    }

    /// A new client-generated id (UUID v4, lowercase): unique without asking the server.
    public static func newID() -> String { UUID().uuidString.lowercased() }

    /// Replaces the entry, recording in history a patch that turns the new entry back into the old.
    /// An unchanged entry adds no history.
    public mutating func replaceEntry(with newEntry: Entry, at now: Timestamp) {
        guard newEntry != entry else { return }
        let patch = MergePatch.diff(from: newEntry.jsonValue, to: entry.jsonValue)
        history.insert(HistoryEntry(created: now, patch: patch), at: 0)
        if history.count > Item.historyLimit { history.removeLast(history.count - Item.historyLimit) }
        entry = newEntry
    }
}

/// The login data of an item.
public struct Entry: Codable, Sendable, Equatable {
    public var kind: String
    public var username: String
    public var password: String
    public var notes: String
    public var totp: String?

    public static let loginKind = "login"

    public init(kind: String = Entry.loginKind, username: String = "", password: String = "", notes: String = "",
                totp: String? = nil) {
        self.kind = kind
        self.username = username
        self.password = password
        self.notes = notes
        self.totp = totp
    }

    /// The entry as a JSON object (absent `totp` is left out), the shape merge patches apply to.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "kind": .string(kind), "username": .string(username), "password": .string(password),
            "notes": .string(notes),
        ]
        if let totp { members["totp"] = .string(totp) }
        return .object(members)
    }

    /// Rebuilds an entry from its JSON object; nil when a member has the wrong type.
    public init?(jsonValue: JSONValue) {
        guard let members = jsonValue.objectValue else { return nil }
        func text(_ name: String) -> String?? {
            switch members[name] {
            case nil: return .some(nil)
            case .string(let value)?: return .some(value)
            default: return nil
            }
        }
        guard let kind = text("kind"), let username = text("username"), let password = text("password"),
              let notes = text("notes"), let totp = text("totp") else { return nil }
        self.init(kind: kind ?? Entry.loginKind, username: username ?? "", password: password ?? "",
                  notes: notes ?? "", totp: totp)
    }

    /// The names of the entry's fields that merge and review compare one by one.
    public static let fieldNames = ["kind", "username", "password", "notes", "totp"]
}

/// One step back in an item's history: applying `patch` to the entry gives its previous state.
public struct HistoryEntry: Codable, Sendable, Equatable {
    public var created: Timestamp
    public var patch: JSONValue

    public init(created: Timestamp, patch: JSONValue) {
        self.created = created
        self.patch = patch
    }
}
