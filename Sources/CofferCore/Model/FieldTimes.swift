/// When each field of an item last changed, and on which device (the Airmail journal): sealed inside the
/// item, never in the clear.
///
/// The single-valued fields carry a time: the built-in ones (`timed`), a kind's fields by name and
/// custom fields by `custom.ID` (a removed custom field keeps its stamp: the removal is a change).
/// Origins and tags are sets and keep their three-way merge. An item written before field times
/// existed has none: its `modified` stands in. Names this version does not know are kept.
public struct FieldTimes: Sendable, Equatable {
    /// The built-in fields that carry a time.
    public static let timed: [ItemField] = [.title, .disabled, .username, .password, .notes, .totp]

    private var stamps: [String: FieldStamp] = [:]

    public init(_ stamps: [ItemField: FieldStamp] = [:]) {
        for (field, stamp) in stamps where Self.carriesTime(field) { self.stamps[field.rawValue] = stamp }
    }

    public var isEmpty: Bool { stamps.isEmpty }

    public subscript(field: ItemField) -> FieldStamp? {
        get { stamps[field.rawValue] }
        set { if Self.carriesTime(field) { stamps[field.rawValue] = newValue } }
    }

    /// Every field but the kind and the two lists: those have no time of their own.
    static func carriesTime(_ field: ItemField) -> Bool {
        field != .kind && !field.isList
    }

    /// The stamps in name byte order (how the item's JSON writes them).
    var sorted: [(name: String, stamp: FieldStamp)] {
        stamps.map { (name: $0.key, stamp: $0.value) }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// Sets a stamp read from the item's JSON, whatever its name.
    mutating func set(_ stamp: FieldStamp, named name: String) {
        stamps[name] = stamp
    }
}

/// One field's last change: the corrected time and the device that made it.
public struct FieldStamp: Sendable, Equatable, Codable {
    public var at: Timestamp
    /// The device id (`meta.device_id`) of the device that made the change; "" when unknown.
    public var by: String

    public init(at: Timestamp, by: String) {
        self.at = at
        self.by = by
    }
}

extension FieldTimes: Codable {
    public init(from decoder: Decoder) throws {
        self.init()
        for (name, stamp) in try [String: FieldStamp](from: decoder) { set(stamp, named: name) }
    }

    public func encode(to encoder: Encoder) throws {
        try stamps.encode(to: encoder)
    }
}

extension Item {
    /// When `field` last changed: its stamp; for an item written before field times, `modified`;
    /// for a field an item with times never stamped, `created` (it has not changed since).
    /// The device is unknown ("") for both.
    public func stamp(of field: ItemField) -> FieldStamp {
        times[field] ?? FieldStamp(at: times.isEmpty ? modified : created, by: "")
    }

    /// Every field that carries a time and has a value on this item or `other`: the built-in ones,
    /// the kind's fields and the custom fields of both.
    func timedFields(with other: Item) -> [ItemField] {
        var fields = FieldTimes.timed
        let names = Set(entry.fields.keys).union(other.entry.fields.keys).sorted()
        fields += names.map(ItemField.named)
        var ids = entry.custom.map(\.id)
        for field in other.entry.custom where !ids.contains(field.id) { ids.append(field.id) }
        fields += ids.map(ItemField.custom)
        return fields
    }

    /// Stamps every timed field whose value differs from `previous`'s (an edit stamps only what it
    /// changed, so coalesced offline edits keep the latest time per field).
    public mutating func stampChanges(from previous: Item, at now: Timestamp, by device: String) {
        for field in timedFields(with: previous) where value(of: field) != previous.value(of: field) {
            times[field] = FieldStamp(at: now, by: device)
        }
    }

    /// A field's value as text, for comparing and tie-breaking; nil for a field the item lacks
    /// (a card's number on a login, a removed custom field).
    func value(of field: ItemField) -> String? {
        switch field {
        case .title: return title
        case .disabled: return disabled ? "yes" : "no"
        case .username: return entry.username
        case .password: return entry.password
        case .notes: return entry.notes
        case .totp: return entry.totp ?? ""
        case .kind: return entry.kind
        case .origins: return origins.joined(separator: "\n")
        case .tags: return tags.joined(separator: "\n")
        default:
            if let id = field.customID {
                // Label, type and value: renaming a field is a change of it too.
                return entry[custom: id].map { "\($0.label)\u{0}\($0.type)\u{0}\($0.value)" }
            }
            return entry.fields[field.rawValue]
        }
    }
}
