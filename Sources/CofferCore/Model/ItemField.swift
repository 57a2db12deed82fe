/// The fields of an item a user sees, edits, merges and reviews, by one name each: the merge's
/// review rows, history patches, field times, secret-ness and display all agree on these.
///
/// The built-in fields have names of their own (`title`, `password`, …); a kind's other fields go
/// by their member name (`number`); a custom field by `custom.` and its id.
public struct ItemField: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let title = ItemField(rawValue: "title")
    public static let disabled = ItemField(rawValue: "disabled")
    public static let username = ItemField(rawValue: "username")
    public static let password = ItemField(rawValue: "password")
    public static let notes = ItemField(rawValue: "notes")
    public static let totp = ItemField(rawValue: "totp")
    public static let kind = ItemField(rawValue: "kind")
    public static let origins = ItemField(rawValue: "origins")
    public static let tags = ItemField(rawValue: "tags")
    /// The item's files, by name in a review; merged as a set by id.
    public static let attachments = ItemField(rawValue: "attachments")

    /// The fields every item has, in review order.
    public static let builtIn: [ItemField] = [.title, .disabled, .username, .password, .notes, .totp, .kind, .origins, .tags,
                                              .attachments]

    /// A kind's field other than a login's (`number`), or a text field of a kind this version does not know.
    public static func named(_ name: String) -> ItemField { ItemField(rawValue: name) }

    /// The custom field with `id`.
    public static func custom(_ id: String) -> ItemField { ItemField(rawValue: customPrefix + id) }

    static let customPrefix = "custom."

    /// The custom field's id, for a custom field.
    public var customID: String? {
        rawValue.hasPrefix(Self.customPrefix) ? String(rawValue.dropFirst(Self.customPrefix.count)) : nil
    }

    /// Shown only on request: masked in reviews, history and `show` without `--reveal`. A custom
    /// field's secret-ness is its type's: `FieldConflict.isSecret` carries it.
    public var isSecret: Bool { Self.isSecret(rawValue) }

    /// A set of values, merged three ways (additions and removals from both sides).
    public var isList: Bool { self == .origins || self == .tags || self == .attachments }

    public var description: String { rawValue }

    /// Whether a field (or a history patch's member) of that name is secret: a login's password
    /// and TOTP secret, a kind's secret fields, and `custom` (a patch's custom fields, whole).
    public static func isSecret(_ name: String) -> Bool {
        name == "password" || name == "totp" || name == "custom" || ItemKind.secretFieldNames.contains(name)
    }

    public init(from decoder: Decoder) throws {
        rawValue = try String(from: decoder)
    }

    public func encode(to encoder: Encoder) throws {
        try rawValue.encode(to: encoder)
    }
}
