import Foundation

/// An item as a foreign format describes it, before it is checked: every parser fills one per
/// record, and `ImportDraft.items` turns them into valid items or refuses the whole file.
public struct ImportDraft: Sendable {
    /// Where the record is, for messages: "line 7", "item 3", "web/github.com.gpg".
    public var place: String
    public var title = ""
    public var username = ""
    public var password = ""
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

    public init(place: String) { self.place = place }

    /// Keeps `value` in the notes under `label` when it is not empty.
    public mutating func note(_ label: String, _ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        extraNotes.append("\(label): \(value)")
    }

    /// Adds an origin, skipping empty and repeated ones.
    public mutating func addOrigin(_ origin: String) {
        let trimmed = origin.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty && !origins.contains(trimmed) { origins.append(trimmed) }
    }

    /// Adds each part of a folder or group path ("Work/Servers") as a tag.
    public mutating func addTags(path: String) {
        for part in path.split(separator: "/") {
            let tag = part.trimmingCharacters(in: .whitespacesAndNewlines)
            if !tag.isEmpty && !tags.contains(tag) { tags.append(tag) }
        }
    }

    /// The item; its title falls back to the origin's host, then the username, so that no record is refused
    /// for lacking one. A TOTP value Coffer cannot read is kept in the notes rather than lost.
    func item(now: Timestamp) -> Item {
        var title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        if title.isEmpty { title = origins.first.map(Self.host) ?? "" }
        if title.isEmpty { title = username.trimmingCharacters(in: .whitespacesAndNewlines) }
        if title.isEmpty { title = "Untitled" }
        var extra = extraNotes
        var totp: String? = totp.trimmingCharacters(in: .whitespacesAndNewlines)
        if let text = totp, !text.isEmpty, (try? TOTP(parsing: text)) == nil {
            extra.append("TOTP: \(text)")
            totp = nil
        }
        if totp?.isEmpty == true { totp = nil }
        var notes = notes
        if !extra.isEmpty { notes += (notes.isEmpty ? "" : "\n\n") + extra.joined(separator: "\n") }
        let created = created ?? modified ?? now
        let modified = max(modified ?? created, created)
        return Item(title: title, origins: origins, tags: tags,
                    entry: Entry(username: username, password: password, notes: notes, totp: totp),
                    disabled: disabled, created: created, modified: modified, lastUsed: lastUsed, history: history)
    }

    /// The host of a URL ("https://a.example/x" -> "a.example"), or the text itself.
    static func host(_ origin: String) -> String {
        URLComponents(string: origin)?.host.flatMap { $0.isEmpty ? nil : $0 } ?? origin
    }

    /// Every draft as a valid item, or `invalidImport` naming the file and the first bad record.
    public static func items(_ drafts: [ImportDraft], file: String, now: Timestamp) throws(CoreError) -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(drafts.count)
        for draft in drafts {
            let item = draft.item(now: now)
            let problems = ItemValidation.problems(in: item)
            guard problems.isEmpty else {
                let fields = problems.map { $0.description.replacingOccurrences(of: "entry.", with: "") }
                throw CoreError.invalidImport(reason: "\(file) \(draft.place): " + fields.joined(separator: ", "))
            }
            items.append(item)
        }
        return items
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
