import Foundation

/// An item as a foreign format describes it, before it is checked: every parser fills one per
/// record, and `ImportDraft.items` turns them into valid items or refuses the whole file.
public struct ImportDraft: Sendable {
    /// Where the record is, for messages: "line 7", "item 3", "web/github.com.gpg".
    public var place: String
    public var title = ""
    /// The item's kind (`ItemKind.name`): a login unless the format says otherwise.
    public var kind = Entry.loginKind
    public var username = ""
    public var password = ""
    /// The kind's fields by name (a card's `number`); empty values are not kept.
    public var fields: [String: String] = [:]
    /// Fields of the record that Coffer has no named field for, kept as the user's own fields.
    public var custom: [CustomField] = []
    public var origins: [String] = []
    public var tags: [String] = []
    public var notes = ""
    /// Lines `Label: value` for what has no field of its own, appended to the notes.
    public var extraNotes: [String] = []
    public var totp = ""
    public var disabled = false
    public var created: Timestamp?
    public var modified: Timestamp?
    public var lastUsed: Timestamp?
    public var history: [HistoryEntry] = []
    /// Files the record carries, attached once the items are stored.
    public var files: [ImportedFile] = []

    public init(place: String) { self.place = place }

    /// Keeps `value` in the notes under `label` when it is not empty.
    public mutating func note(_ label: String, _ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        extraNotes.append("\(label): \(value)")
    }

    /// Sets the kind's field `name` to `value` unless the value is empty (blank).
    public mutating func setField(_ name: String, _ value: String) {
        guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return }
        fields[name] = value
    }

    /// Adds a custom field; a blank label becomes "Field". `id` lets the versions of one record
    /// (KeePassXC's history) give the same field the same id, so their patches compare field by field.
    public mutating func addCustom(_ label: String, _ value: String, type: CustomField.FieldType, id: String = Item.newID()) {
        let label = label.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? "Field" : label
        custom.append(CustomField(id: id, label: label, value: value, type: type))
    }

    /// Adds an origin, skipping empty and repeated ones.
    public mutating func addOrigin(_ origin: String) {
        let trimmed = origin.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty && !origins.contains(trimmed) { origins.append(trimmed) }
    }

    /// Adds each part of a folder or group path ("Work/Servers") as a tag.
    public mutating func addTags(path: String) {
        for part in path.split(separator: "/") { addTag(String(part)) }
    }

    /// Adds a tag, skipping empty and repeated ones.
    public mutating func addTag(_ tag: String) {
        let tag = tag.trimmingCharacters(in: .whitespacesAndNewlines)
        if !tag.isEmpty && !tags.contains(tag) { tags.append(tag) }
    }

    /// The item; its title falls back to the origin's host, then the username, so that no record is refused
    /// for lacking one.
    func item(now: Timestamp) -> Item {
        var title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        if title.isEmpty { title = origins.first.map(Self.host) ?? "" }
        if title.isEmpty { title = username.trimmingCharacters(in: .whitespacesAndNewlines) }
        if title.isEmpty { title = "Untitled" }
        let created = created ?? modified ?? now
        let modified = max(modified ?? created, created)
        return Item(title: title, origins: origins, tags: tags, entry: entry(), disabled: disabled, created: created,
                    modified: modified, lastUsed: lastUsed, history: history)
    }

    /// The entry as it is stored. What the vault would refuse but a foreign file may well hold is
    /// kept in the notes rather than lost or refused: a TOTP value Coffer cannot read, and a kind
    /// field its format does not allow (a card's expiry month "13"). A month "07" is stored as
    /// "7", a two-digit year "30" as "2030".
    func entry() -> Entry {
        var extra = extraNotes
        var totp: String? = totp.trimmingCharacters(in: .whitespacesAndNewlines)
        if let text = totp, !text.isEmpty, (try? TOTP(parsing: text)) == nil {
            extra.append("TOTP: \(text)")
            totp = nil
        }
        if totp?.isEmpty == true { totp = nil }
        var fields = fields.filter { !$0.value.isEmpty }
        if let kind = ItemKind.named(kind) {
            for field in kind.fields where field.format != .text {
                guard let value = fields[field.name] else { continue }
                if let normalised = Self.normalised(value, as: field.format) {
                    fields[field.name] = normalised.isEmpty ? nil : normalised
                } else {
                    fields[field.name] = nil
                    extra.append("\(field.label): \(value)")
                }
            }
        }
        var notes = notes
        if !extra.isEmpty { notes += (notes.isEmpty ? "" : "\n\n") + extra.joined(separator: "\n") }
        return Entry(kind: kind, username: username, password: password, notes: notes, totp: totp, fields: fields,
                     custom: custom)
    }

    /// A month as 1–12 without a leading zero; a year as four digits, two-digit years taken as 20YY;
    /// nil when the value is neither. A flag is on or off (empty), read failing safe as stored
    /// values are (`FlagValue.isOn`): an unknown spelling is not dropped into the notes as off.
    static func normalised(_ value: String, as format: KindField.Format) -> String? {
        guard format != .text else { return value }
        if format == .flag { return FlagValue.isOn(value) ? FlagValue.on : FlagValue.off }
        let text = value.trimmingCharacters(in: .whitespaces)
        guard (1...4).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(text) else { return nil }
        switch format {
        case .text, .flag: return value
        case .month: return (1...12).contains(number) ? String(number) : nil
        case .year: return text.count == 2 ? String(2000 + number) : text.count == 4 ? text : nil
        }
    }

    /// The host of a URL ("https://a.example/x" -> "a.example"), or the text itself.
    static func host(_ origin: String) -> String {
        URLComponents(string: origin)?.host.flatMap { $0.isEmpty ? nil : $0 } ?? origin
    }

    /// Every draft as a valid item, or `invalidImport` naming the file, the first bad record and
    /// each of its problems.
    public static func items(_ drafts: [ImportDraft], file: String, now: Timestamp) throws(CoreError) -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(drafts.count)
        for draft in drafts {
            let item = draft.item(now: now)
            let problems = ItemValidation.problems(in: item)
            guard problems.isEmpty else {
                let fields = problems.map { describe($0, in: item) }
                throw CoreError.invalidImport(reason: "\(file) \(draft.place): " + fields.joined(separator: ", "))
            }
            items.append(item)
        }
        return items
    }

    /// A problem as the file's reader knows the field: "notes is …", `custom field "PIN" value is …`.
    static func describe(_ problem: FieldProblem, in item: Item) -> String {
        var field = problem.field
        if field.hasPrefix("entry.") { field.removeFirst("entry.".count) }
        if field.hasPrefix("custom["), let close = field.firstIndex(of: "]"),
           let index = Int(field[field.index(field.startIndex, offsetBy: 7)..<close]), item.entry.custom.indices.contains(index) {
            let label = item.entry.custom[index].label
            let shown = label.count > 40 ? label.prefix(40) + "…" : Substring(label)
            let member = field[field.index(after: close)...].drop { $0 == "." }
            field = "custom field \"\(shown)\"" + (member.isEmpty ? "" : " \(member)")
        }
        return "\(field) \(problem.reason)"
    }

    /// Milliseconds since the epoch as text (Firefox's times); nil when empty, not a number or
    /// outside years 0000–9999.
    public static func time(milliseconds text: String) -> Timestamp? {
        Int64(text.trimmingCharacters(in: .whitespaces)).map(Timestamp.init(milliseconds:)).flatMap(storable)
    }

    /// ISO 8601 with or without fractional seconds or a zone offset; nil when empty, unreadable or
    /// outside years 0000–9999 (Foundation's parser reads "20234-01-01T…", which no item can hold).
    public static func time(iso8601 text: String) -> Timestamp? {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if let time = Timestamp(iso8601: text) { return time }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return storable(Timestamp(date)) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map(Timestamp.init).flatMap(storable)
    }

    private static func storable(_ time: Timestamp) -> Timestamp? { time.isStorable ? time : nil }
}
