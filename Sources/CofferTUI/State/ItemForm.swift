import CofferCore
import Foundation

/// The edit and new-item form: one text field per item field, validation messages in place.
struct ItemForm: Sendable, Equatable {
    enum Field: Int, Sendable, CaseIterable, Comparable {
        case title, username, password, totp, origins, tags, notes, disabled

        static func < (lhs: Field, rhs: Field) -> Bool { lhs.rawValue < rhs.rawValue }

        var label: String {
            switch self {
            case .title: return "Title"
            case .username: return "Username"
            case .password: return "Password"
            case .totp: return "TOTP"
            case .origins: return "Origins"
            case .tags: return "Tags"
            case .notes: return "Notes"
            case .disabled: return "Disabled"
            }
        }
    }

    /// nil for a new item.
    var itemID: String?
    /// The version the form was opened on: saving merges into whatever the vault holds by then.
    var base: Item?
    var texts: [Field: TextField]
    var isDisabled: Bool
    var focus = Field.title
    /// Validation messages under each field.
    var problems: [Field: [String]] = [:]
    /// Messages that belong to no one field (a failed save).
    var formProblems: [String] = []
    var isPasswordRevealed = false
    var generator: GeneratorState?
    var hasChanges = false

    /// A form for a new item, or for editing `item`.
    init(editing item: Item? = nil) {
        itemID = item?.id
        base = item
        isDisabled = item?.disabled ?? false
        texts = [
            .title: TextField(item?.title ?? ""),
            .username: TextField(item?.entry.username ?? ""),
            .password: TextField(item?.entry.password ?? ""),
            .totp: TextField(item?.entry.totp ?? ""),
            .origins: TextField(item?.origins.joined(separator: ", ") ?? ""),
            .tags: TextField(item?.tags.joined(separator: ", ") ?? ""),
            .notes: TextField(item?.entry.notes ?? ""),
        ]
    }

    func text(_ field: Field) -> String { texts[field]?.text ?? "" }

    var isNew: Bool { itemID == nil }

    /// Lists are typed comma-separated; blanks between commas are dropped.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
