/// A field the user added to an item: a label, a value and how to treat the value, with an id
/// that stays when the label changes, so two devices' edits merge field by field (architecture §2).
public struct CustomField: Sendable, Equatable, Codable {
    /// What the value is. A type a newer version wrote is kept as it came and shown as text.
    public enum FieldType: String, Sendable, CaseIterable {
        case text, hidden, url, email, totp, date
    }

    public var id: String
    public var label: String
    public var value: String
    /// A `FieldType`'s raw value, or a newer version's type kept unchanged.
    public var type: String

    public init(id: String = Item.newID(), label: String, value: String, type: FieldType = .text) {
        self.init(id: id, label: label, value: value, typeName: type.rawValue)
    }

    public init(id: String, label: String, value: String, typeName: String) {
        self.id = id
        self.label = label
        self.value = value
        self.type = typeName
    }

    enum CodingKeys: String, CodingKey {
        case id, label, value, type
    }

    /// An export file may leave out the id (a new one is made) and the type (text).
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decodeIfPresent(String.self, forKey: .id) ?? Item.newID(),
                  label: try container.decode(String.self, forKey: .label),
                  value: try container.decode(String.self, forKey: .value),
                  typeName: try container.decodeIfPresent(String.self, forKey: .type) ?? FieldType.text.rawValue)
    }

    public var fieldType: FieldType? { FieldType(rawValue: type) }

    /// `hidden` and `totp` values are secrets: masked, left out of `show` without `--reveal`, never searched.
    public var isSecret: Bool { fieldType == .hidden || fieldType == .totp }

    /// The field as the item's JSON holds it.
    var jsonValue: JSONValue {
        .object(["id": .string(id), "label": .string(label), "type": .string(type), "value": .string(value)])
    }

    init?(jsonValue: JSONValue) {
        guard case .object(let members) = jsonValue, case .string(let id)? = members["id"],
              case .string(let label)? = members["label"], case .string(let type)? = members["type"],
              case .string(let value)? = members["value"] else { return nil }
        self.init(id: id, label: label, value: value, typeName: type)
    }
}

extension Entry {
    /// The custom field with `id`; setting nil removes it, setting a new one appends it.
    public subscript(custom id: String) -> CustomField? {
        get { custom.first { $0.id == id } }
        set {
            if let index = custom.firstIndex(where: { $0.id == id }) {
                if let newValue { custom[index] = newValue } else { custom.remove(at: index) }
            } else if let newValue {
                custom.append(newValue)
            }
        }
    }
}
