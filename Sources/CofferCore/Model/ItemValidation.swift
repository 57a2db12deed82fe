/// The limits of architecture §2, checked before anything is stored.
public enum ItemValidation {
    public static let shortTextLimit = 500
    public static let notesLimit = 10_000

    /// Every problem with `item`, one per bad field; empty when the item may be stored.
    public static func problems(in item: Item) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if !RecordID.isValid(item.id) {
            problems.append(FieldProblem(field: "id", reason: "must be letters, digits, '-' or '_' and start with a letter or digit"))
        }
        if item.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            problems.append(FieldProblem(field: "title", reason: "must not be empty"))
        }
        check(item.title, "title", shortTextLimit, into: &problems)
        for (index, origin) in item.origins.enumerated() {
            check(origin, "origins[\(index)]", shortTextLimit, into: &problems)
            if origin.trimmingCharacters(in: .whitespaces).isEmpty {
                problems.append(FieldProblem(field: "origins[\(index)]", reason: "must not be empty"))
            }
        }
        for (index, tag) in item.tags.enumerated() {
            check(tag, "tags[\(index)]", shortTextLimit, into: &problems)
            if tag.trimmingCharacters(in: .whitespaces).isEmpty {
                problems.append(FieldProblem(field: "tags[\(index)]", reason: "must not be empty"))
            }
        }
        // A kind this version does not know is a newer device's: kept, never refused.
        if item.entry.kind.isEmpty || !item.entry.kind.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) {
            problems.append(FieldProblem(field: "entry.kind", reason: "must be a name such as \"login\" or \"card\""))
        }
        check(item.entry.kind, "entry.kind", 100, into: &problems)
        checkKindFields(of: item.entry, into: &problems)
        checkCustomFields(item.entry.custom, into: &problems)
        check(item.entry.username, "entry.username", shortTextLimit, into: &problems)
        check(item.entry.password, "entry.password", shortTextLimit, into: &problems)
        check(item.entry.notes, "entry.notes", notesLimit, into: &problems)
        if let totp = item.entry.totp { check(totp, "entry.totp", shortTextLimit, into: &problems) }
        checkAttachments(item.attachments, into: &problems)
        if item.history.count > Item.historyLimit {
            problems.append(FieldProblem(field: "history", reason: "has more than \(Item.historyLimit) entries"))
        }
        if item.modified < item.created {
            problems.append(FieldProblem(field: "modified", reason: "is earlier than created"))
        }
        return problems
    }

    /// Throws `CoreError.invalidItem` naming every bad field.
    public static func validate(_ item: Item) throws {
        let found = problems(in: item)
        if !found.isEmpty { throw CoreError.invalidItem(id: item.id, problems: found) }
    }

    /// At most this many custom fields on one item.
    public static let customFieldLimit = 100

    private static func checkKindFields(of entry: Entry, into problems: inout [FieldProblem]) {
        let kind = ItemKind.named(entry.kind)
        for (name, value) in entry.fields.sorted(by: { $0.key < $1.key }) {
            check(name, "entry field name", 100, into: &problems)
            check(value, "entry.\(name)", kind?.field(name)?.limit ?? shortTextLimit, into: &problems)
            guard let format = kind?.field(name)?.format, !value.isEmpty else { continue }
            switch format {
            // A flag's stored text is any older screen's (free text then): it is read, not refused (`FlagValue.isOn`).
            case .text, .flag: break
            case .month:
                if !(1...12).contains(Int(value) ?? 0) {
                    problems.append(FieldProblem(field: "entry.\(name)", reason: "must be a month from 1 to 12"))
                }
            case .year:
                if value.count != 4 || Int(value) == nil {
                    problems.append(FieldProblem(field: "entry.\(name)", reason: "must be a year of four digits"))
                }
            }
        }
    }

    /// The most characters an attachment's name may have.
    static let fileNameLimit = 255

    /// Whether `name` may name an attachment: not empty and without `/` (it is never a path).
    static func isFileName(_ name: String) -> Bool { !name.isEmpty && !name.contains("/") }

    private static func checkAttachments(_ attachments: [Attachment], into problems: inout [FieldProblem]) {
        if attachments.count > Attachment.countLimit {
            problems.append(FieldProblem(field: "attachments", reason: "has \(attachments.count) files, the limit is \(Attachment.countLimit)"))
        }
        var ids = Set<String>()
        for (index, file) in attachments.enumerated() {
            let name = "attachments[\(index)]"
            if !RecordID.isValid(file.id) || !ids.insert(file.id).inserted || file.id.count > 100 {
                problems.append(FieldProblem(field: "\(name).id", reason: "must be a unique id of letters, digits, '-' or '_'"))
            }
            if !isFileName(file.name) {
                problems.append(FieldProblem(field: "\(name).name", reason: "must be a file name, without '/'"))
            }
            check(file.name, "\(name).name", fileNameLimit, into: &problems)
            if !(0...Attachment.sizeLimit).contains(file.size) {
                problems.append(FieldProblem(field: "\(name).size", reason: "must be at most \(Attachment.sizeLimit) bytes"))
            }
            if file.sha256.count != 64 || !file.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
                problems.append(FieldProblem(field: "\(name).sha256", reason: "must be 64 lower-case hex digits"))
            }
        }
    }

    private static func checkCustomFields(_ fields: [CustomField], into problems: inout [FieldProblem]) {
        if fields.count > customFieldLimit {
            problems.append(FieldProblem(field: "custom", reason: "has \(fields.count) fields, the limit is \(customFieldLimit)"))
        }
        var ids = Set<String>()
        for (index, field) in fields.enumerated() {
            let name = "custom[\(index)]"
            if !RecordID.isValid(field.id) || !ids.insert(field.id).inserted {
                problems.append(FieldProblem(field: "\(name).id", reason: "must be a unique id of letters, digits, '-' or '_'"))
            }
            if field.label.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                problems.append(FieldProblem(field: "\(name).label", reason: "must not be empty"))
            }
            check(field.label, "\(name).label", shortTextLimit, into: &problems)
            check(field.type, "\(name).type", 100, into: &problems)
            check(field.value, "\(name).value", notesLimit, into: &problems)
        }
    }

    private static func check(_ text: String, _ field: String, _ limit: Int, into problems: inout [FieldProblem]) {
        let length = text.count
        if length > limit {
            problems.append(FieldProblem(field: field, reason: "is \(length) characters long, the limit is \(limit)"))
        }
        if text.unicodeScalars.contains(where: { $0.value == 0 }) {
            problems.append(FieldProblem(field: field, reason: "contains a NUL character"))
        }
    }
}

/// One invalid field and why.
public struct FieldProblem: Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field) \(reason)" }
}

/// Kinto's rule for record ids: `^[a-zA-Z0-9][a-zA-Z0-9_-]*$`.
public enum RecordID {
    public static func isValid(_ id: String) -> Bool {
        isValid(utf8: id.utf8)
    }

    /// `isValid` on an id's UTF-8 bytes.
    static func isValid<Bytes: Collection<UInt8>>(utf8 id: Bytes) -> Bool {
        guard let first = id.first, id.count <= 200 else { return false }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
        }
        return isAlphanumeric(first) && id.allSatisfy { isAlphanumeric($0) || $0 == 45 || $0 == 95 }
    }
}
