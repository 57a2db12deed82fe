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
        if item.entry.kind != Entry.loginKind {
            problems.append(FieldProblem(field: "entry.kind", reason: "must be \"login\""))
        }
        check(item.entry.username, "entry.username", shortTextLimit, into: &problems)
        check(item.entry.password, "entry.password", shortTextLimit, into: &problems)
        check(item.entry.notes, "entry.notes", notesLimit, into: &problems)
        if let totp = item.entry.totp { check(totp, "entry.totp", shortTextLimit, into: &problems) }
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
