import Foundation

/// One value of an item by name, for `show --field`, `copy --field` and the screen's copy keys:
/// the item's fields (`ItemField`) plus its id, its first origin and its dates, and any other
/// field by name (a card's `number`, an identity's "Email", a custom field's label). `totp`, and a
/// custom field of type `totp`, give the current code, not the secret.
public enum FieldSelector: Sendable, Equatable {
    case field(ItemField)
    case id, origin, created, modified
    /// A kind's field by name or label, else a custom field by label (case-insensitive).
    case other(String)

    /// Every built-in name `init(name:)` accepts, in the order help lists them.
    public static let names = ["id", "title", "username", "password", "totp", "origin", "origins", "tags", "notes",
                               "disabled", "created", "modified"]

    public init?(name: String) {
        switch name.lowercased() {
        case "id": self = .id
        case "origin": self = .origin
        case "created": self = .created
        case "modified": self = .modified
        case ItemField.kind.rawValue, "": return nil
        case let other:
            let field = ItemField(rawValue: other)
            self = ItemField.builtIn.contains(field) ? .field(field) : .other(name)
        }
    }

    /// The raw value at `now` (lists one per line); nil when the item has none (no origin, no TOTP,
    /// no field of that name).
    public func value(of item: Item, at now: Date) throws(CoreError) -> String? {
        switch self {
        case .id: return item.id
        case .origin: return item.origins.first
        case .created: return item.created.iso8601
        case .modified: return item.modified.iso8601
        case .other(let name): return try Self.value(named: name, of: item, at: now)
        case .field(let field):
            switch field {
            case .title: return item.title
            case .username: return item.entry.username
            case .password: return item.entry.password
            case .notes: return item.entry.notes
            case .kind: return item.entry.kind
            case .disabled: return item.disabled ? "yes" : "no"
            case .origins: return item.origins.joined(separator: "\n")
            case .tags: return item.tags.joined(separator: "\n")
            case .totp: return try item.totpGenerator()?.code(at: now)
            default: return try Self.value(named: field.rawValue, of: item, at: now)
            }
        }
    }

    private static func value(named name: String, of item: Item, at now: Date) throws(CoreError) -> String? {
        if let field = ItemKind.named(item.entry.kind)?.field(name) { return item.entry[field: field.name] }
        if let value = item.entry.fields[name] { return value }
        let wanted = name.lowercased()
        guard let custom = item.entry.custom.first(where: { $0.label.lowercased() == wanted }) else { return nil }
        guard custom.fieldType == .totp else { return custom.value }
        do {
            return try TOTP(parsing: custom.value).code(at: now)
        } catch {
            throw .invalidTOTP(error)
        }
    }
}
