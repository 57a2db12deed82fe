/// When each field of an item last changed, and on which device (the Airmail journal): sealed inside the
/// item, never in the clear.
///
/// Only the single-valued fields carry a time; origins and tags are sets and keep their three-way
/// merge. An item written before field times existed has none: its `modified` stands in.
public struct FieldTimes: Sendable, Equatable {
    /// The fields that carry a time.
    public static let timed: [ItemField] = [.title, .disabled, .username, .password, .notes, .totp]

    private var stamps: [ItemField: FieldStamp] = [:]

    public init(_ stamps: [ItemField: FieldStamp] = [:]) {
        self.stamps = stamps.filter { Self.timed.contains($0.key) }
    }

    public var isEmpty: Bool { stamps.isEmpty }

    public subscript(field: ItemField) -> FieldStamp? {
        get { stamps[field] }
        set { if Self.timed.contains(field) { stamps[field] = newValue } }
    }

    /// The stamps in field-name order (how the item's JSON writes them).
    var sorted: [(field: ItemField, stamp: FieldStamp)] {
        stamps.map { (field: $0.key, stamp: $0.value) }.sorted { $0.field.rawValue < $1.field.rawValue }
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
        let named = try [String: FieldStamp](from: decoder)
        var stamps: [ItemField: FieldStamp] = [:]
        // A field this version does not know (a newer device's) is left out rather than refused.
        for (name, stamp) in named { if let field = ItemField(rawValue: name) { stamps[field] = stamp } }
        self.init(stamps)
    }

    public func encode(to encoder: Encoder) throws {
        try Dictionary(uniqueKeysWithValues: stamps.map { ($0.key.rawValue, $0.value) }).encode(to: encoder)
    }
}

extension Item {
    /// When `field` last changed: its stamp; for an item written before field times, `modified`;
    /// for a field an item with times never stamped, `created` (it has not changed since).
    /// The device is unknown ("") for both.
    public func stamp(of field: ItemField) -> FieldStamp {
        times[field] ?? FieldStamp(at: times.isEmpty ? modified : created, by: "")
    }

    /// Stamps every timed field whose value differs from `previous`'s (an edit stamps only what it
    /// changed, so coalesced offline edits keep the latest time per field).
    public mutating func stampChanges(from previous: Item, at now: Timestamp, by device: String) {
        for field in FieldTimes.timed where value(of: field) != previous.value(of: field) {
            times[field] = FieldStamp(at: now, by: device)
        }
    }

    /// A timed field's value as text, for comparing and tie-breaking.
    func value(of field: ItemField) -> String {
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
        }
    }
}
