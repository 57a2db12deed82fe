import Foundation

/// One value of an item by name, for `show --field`, `copy --field` and the screen's copy keys:
/// the item's fields (`ItemField`) plus its id, its first origin and its dates. `totp` is the
/// current code, not the secret.
public enum FieldSelector: Sendable, Equatable {
    case field(ItemField)
    case id, origin, created, modified

    /// Every name `init(name:)` accepts, in the order help lists them.
    public static let names = ["id", "title", "username", "password", "totp", "origin", "origins", "tags", "notes",
                               "disabled", "created", "modified"]

    public init?(name: String) {
        switch name.lowercased() {
        case "id": self = .id
        case "origin": self = .origin
        case "created": self = .created
        case "modified": self = .modified
        case ItemField.kind.rawValue: return nil
        case let other:
            guard let field = ItemField(rawValue: other) else { return nil }
            self = .field(field)
        }
    }

    /// The raw value at `now` (lists one per line); nil when the item has none (no origin, no TOTP).
    public func value(of item: Item, at now: Date) throws(CoreError) -> String? {
        switch self {
        case .id: return item.id
        case .origin: return item.origins.first
        case .created: return item.created.iso8601
        case .modified: return item.modified.iso8601
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
            }
        }
    }
}
