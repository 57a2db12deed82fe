import CofferCore
import Foundation

/// The edit and new-item form of one kind: a text field for each field the kind shows, the
/// custom fields (added, removed, moved and given a type here), validation messages in place.
///
/// Editing keeps what the form does not show: the item saved is the form's base with the form's
/// fields written over it (`Update.formItem`), so a newer version's members stay as they were, and
/// an item of a kind this version does not know is edited in its title, tags and notes only.
struct ItemForm: Sendable, Equatable {
    enum Field: Sendable, Hashable {
        case title
        /// A field of the kind by its member name (a login's `username`, a card's `number`).
        case kind(String)
        case origins, tags, notes
        /// A custom field's label or value, by the field's id.
        case customLabel(String)
        case customValue(String)
        case disabled

        static let username = Field.kind("username")
        static let password = Field.kind("password")
        static let totp = Field.kind("totp")

        /// The custom field's id, for its label and value.
        var customID: String? {
            switch self {
            case .customLabel(let id), .customValue(let id): return id
            default: return nil
            }
        }
    }

    /// A custom field as the form holds it beside its label and value texts.
    struct CustomRow: Sendable, Equatable {
        var id: String
        /// A `CustomField.FieldType`'s raw value, or a newer version's type kept as it came.
        var type: String

        var isSecret: Bool { CustomField(id: id, label: "", value: "", typeName: type).isSecret }
    }

    /// What a custom field the form adds is called until the runtime gives it a random id on saving
    /// (`ItemForm.givingIDs`): `Update` makes no random numbers.
    static let placeholderPrefix = "new-field-"

    /// The item's kind as stored (`entry.kind`).
    var kindName: String
    /// nil for a new item.
    var itemID: String?
    /// The version the form was opened on: saving merges into whatever the vault holds by then.
    var base: Item?
    var texts: [Field: TextField]
    /// The custom fields in the order shown.
    var custom: [CustomRow]
    var isDisabled: Bool
    var focus = Field.title
    /// Validation messages under each field.
    var problems: [Field: [String]] = [:]
    /// Messages that belong to no one field (a failed save).
    var formProblems: [String] = []
    /// Secret fields shown as typed (^R).
    var isRevealed = false
    var generator: GeneratorState?
    /// The field the open generator's password goes into.
    var generatorTarget: Field?
    var hasChanges = false
    /// Custom fields added so far (their placeholder ids count up).
    var addedFields = 0

    /// A form for a new item of `kind`.
    init(kind: ItemKind = .login) {
        kindName = kind.name
        isDisabled = false
        custom = []
        texts = [.title: TextField(), .origins: TextField(), .tags: TextField(), .notes: TextField()]
        for field in kind.fields { texts[.kind(field.name)] = TextField() }
    }

    /// A form for editing `item`.
    init(editing item: Item) {
        kindName = item.entry.kind
        itemID = item.id
        base = item
        isDisabled = item.disabled
        texts = [
            .title: TextField(item.title),
            .origins: TextField(item.origins.joined(separator: ", ")),
            .tags: TextField(item.tags.joined(separator: ", ")),
            .notes: TextField(item.entry.notes),
        ]
        custom = []
        guard let kind = ItemKind.named(item.entry.kind) else { return }
        for field in kind.fields {
            let value = item.entry[field: field.name] ?? ""
            // A yes-or-no field shows what the agent reads: any older spelling of yes (`y`, `on`) as ticked.
            texts[.kind(field.name)] = TextField(field.format == .flag ? (FlagValue.isOn(value) ? FlagValue.on : FlagValue.off) : value)
        }
        for field in item.entry.custom {
            custom.append(CustomRow(id: field.id, type: field.type))
            texts[.customLabel(field.id)] = TextField(field.label)
            texts[.customValue(field.id)] = TextField(field.value)
        }
    }

    /// A new item's form made of another kind: the title, origins, tags, notes, custom fields and
    /// Disabled stay; each of the kind's own fields shows what was typed in a field of that name
    /// before (stepping back to a login finds its username), or nothing.
    mutating func changeKind(to kind: ItemKind) {
        guard isNew else { return }
        kindName = kind.name
        for field in kind.fields where texts[.kind(field.name)] == nil { texts[.kind(field.name)] = TextField() }
        problems = [:]
        formProblems = []
        if !fields.contains(focus) { focus = .title }
    }

    /// The kind, when this version knows it.
    var kind: ItemKind? { ItemKind.named(kindName) }

    /// Whether the form shows the kind's fields and the custom fields: not for a kind this version
    /// does not know, whose fields it keeps untouched.
    var editsFields: Bool { kind != nil }

    /// The fields in the order Tab visits them.
    var fields: [Field] {
        guard let kind else { return [.title, .tags, .notes] }
        return [.title] + kind.fields.map { .kind($0.name) } + [.origins, .tags, .notes]
            + custom.flatMap { [Field.customLabel($0.id), .customValue($0.id)] } + [.disabled]
    }

    func text(_ field: Field) -> String { texts[field]?.text ?? "" }

    var isNew: Bool { itemID == nil }

    /// What the form calls a field (a custom field's label is one of its texts).
    func label(_ field: Field) -> String {
        switch field {
        case .title: return "Title"
        case .kind(let name): return kind?.field(name)?.label ?? name
        case .origins: return "Origins"
        case .tags: return "Tags"
        case .notes: return "Notes"
        case .customLabel, .customValue: return "Custom field"
        case .disabled: return "Disabled"
        }
    }

    /// Whether the field is masked while typed (unless revealed): a secret field of the kind, the
    /// value of a hidden or TOTP custom field.
    func isSecret(_ field: Field) -> Bool {
        switch field {
        case .kind(let name): return ItemField.isSecret(name)
        case .customValue(let id): return custom.first { $0.id == id }?.isSecret ?? false
        default: return false
        }
    }

    /// Whether `field` is a checkbox that Space toggles: Disabled, or a yes-or-no field of the kind
    /// (`KindField.Format.flag`, an SSH key's "Confirm each use"), whose text is `FlagValue.on` or empty.
    func isCheckbox(_ field: Field) -> Bool {
        if field == .disabled { return true }
        guard case .kind(let name) = field else { return false }
        return kind?.field(name)?.format == .flag
    }

    /// Whether a checkbox is ticked.
    func isOn(_ field: Field) -> Bool {
        field == .disabled ? isDisabled : FlagValue.isOn(text(field))
    }

    /// Whether any field of the form is masked.
    var hasSecrets: Bool { fields.contains(where: isSecret) }

    /// The index of the custom field with `id` in `custom`.
    func customIndex(_ id: String?) -> Int? {
        id.flatMap { id in custom.firstIndex { $0.id == id } }
    }

    /// The field a generated password goes into: the focused one when it takes a password (the
    /// password, a hidden custom field), else the login's password; nil when there is none.
    var generatorField: Field? {
        if focus == .password { return focus }
        if case .customValue(let id) = focus, custom.first(where: { $0.id == id })?.type == CustomField.FieldType.hidden.rawValue {
            return focus
        }
        return fields.contains(.password) ? .password : nil
    }

    // MARK: Custom fields

    /// Adds an empty text field at the end of the custom fields, its label focused.
    mutating func addCustomField() {
        var id: String
        repeat {
            addedFields += 1
            id = ItemForm.placeholderPrefix + String(addedFields)
        } while customIndex(id) != nil
        custom.append(CustomRow(id: id, type: CustomField.FieldType.text.rawValue))
        texts[.customLabel(id)] = TextField()
        texts[.customValue(id)] = TextField()
        focus = .customLabel(id)
        hasChanges = true
    }

    /// Removes the focused custom field; the focus goes to the next one, else the one before, else
    /// the notes.
    mutating func removeFocusedCustomField() {
        guard let index = customIndex(focus.customID) else { return }
        let id = custom.remove(at: index).id
        for field in [Field.customLabel(id), .customValue(id)] {
            texts[field] = nil
            problems[field] = nil
        }
        if custom.indices.contains(index) {
            focus = .customLabel(custom[index].id)
        } else {
            focus = custom.last.map { .customLabel($0.id) } ?? .notes
        }
        hasChanges = true
    }

    /// Moves the focused custom field one place up (`by: -1`) or down (`by: 1`); the focus goes with it.
    mutating func moveFocusedCustomField(by offset: Int) {
        guard let index = customIndex(focus.customID), custom.indices.contains(index + offset) else { return }
        custom.swapAt(index, index + offset)
        hasChanges = true
    }

    /// The focused custom field's next type: text → hidden → url → email → totp → date → text (a
    /// newer version's type becomes text).
    mutating func cycleFocusedCustomFieldType() {
        guard let index = customIndex(focus.customID) else { return }
        let types = CustomField.FieldType.allCases
        let next = types.firstIndex { $0.rawValue == custom[index].type }.map { types[($0 + 1) % types.count] } ?? .text
        custom[index].type = next.rawValue
        problems[.customValue(custom[index].id)] = nil
        hasChanges = true
    }

    // MARK: Saving

    /// Lists are typed comma-separated; blanks between commas are dropped.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `item` with a fresh id (`newID`) for each custom field `base` does not have: the fields a
    /// form added carry placeholders until saved, and two devices' new fields must never share an
    /// id (merges go by it).
    static func givingIDs(toFieldsAddedIn item: Item, over base: Item?, newID: () -> String) -> Item {
        let kept = Set(base?.entry.custom.map(\.id) ?? [])
        var item = item
        for index in item.entry.custom.indices where !kept.contains(item.entry.custom[index].id) {
            item.entry.custom[index].id = newID()
        }
        return item
    }
}
