import CofferCore
import Foundation

/// A value on an item's detail page that the cursor can rest on and Enter copies: a field of the
/// item's kind, a custom field, an origin, the tags, the notes or one of its files.
enum DetailField: Sendable, Hashable {
    /// A field of the item's kind by its member name: a login's `username`, `password` or `totp`
    /// (copied as its current code), a card's `number`, a field of a kind this version does not know.
    case entry(String)
    /// A custom field by id (one of type `totp` is copied as its current code).
    case custom(String)
    /// The origin at this index.
    case origin(Int)
    case tags
    case notes
    /// A file kept with the item (`Attachment`), by id: `w` saves it to a path, `x` removes it;
    /// Enter copies nothing.
    case file(String)

    /// The fields the detail page shows for `item`, in order: the kind's, the custom fields, the
    /// origins, the tags, the notes, the files.
    static func fields(of item: Item) -> [DetailField] {
        entryFieldNames(of: item.entry).map(DetailField.entry) + item.entry.custom.map { .custom($0.id) }
            + item.origins.indices.map(DetailField.origin) + [.tags, .notes] + item.attachments.map { .file($0.id) }
    }

    /// The names of the entry's fields the page shows, in order. A login: username, password and
    /// TOTP when it has one; another known kind: its fields in `ItemKind` order; then any field the
    /// kind does not describe (a newer version's), by name. A kind this version does not know: all
    /// of its fields, by name.
    static func entryFieldNames(of entry: Entry) -> [String] {
        let kind = ItemKind.named(entry.kind)
        var names: [String]
        if kind == .login {
            names = ["username", "password"] + (entry.totp == nil ? [] : ["totp"])
        } else {
            names = kind?.fields.map(\.name) ?? []
        }
        let described = Set(kind?.fields.map(\.name) ?? [])
        names += entry.fields.keys.filter { !described.contains($0) }.sorted()
        return names
    }

    /// The label the page shows beside the field (a custom field's own, through `TerminalText`).
    func label(in item: Item) -> String {
        switch self {
        case .entry(let name):
            return ItemKind.named(item.entry.kind)?.field(name)?.label ?? TerminalText.line(name)
        case .custom(let id): return TerminalText.line(item.entry[custom: id]?.label ?? "")
        case .origin(let index): return index == 0 ? "Origins" : ""
        case .tags: return "Tags"
        case .notes: return "Notes"
        case .file(let id): return item.attachments.first?.id == id ? "Files" : ""
        }
    }

    /// Whether the value is masked until revealed: a secret field of the kind (by name, as in
    /// every kind), a hidden custom field. TOTP fields show their code, never their secret.
    func isSecret(in item: Item) -> Bool {
        switch self {
        case .entry(let name): return ItemField.isSecret(name)
        case .custom(let id): return item.entry[custom: id]?.isSecret ?? false
        case .origin, .tags, .notes, .file: return false
        }
    }

    /// Whether the page shows the field's current TOTP code rather than its value.
    func isTOTP(in item: Item) -> Bool {
        switch self {
        case .entry(let name): return name == "totp" && item.entry.kind == Entry.loginKind
        case .custom(let id): return item.entry[custom: id]?.fieldType == .totp
        case .origin, .tags, .notes, .file: return false
        }
    }

    /// What a notice calls the field: "password", "security code", "TOTP code", "field “PIN hint”".
    func name(in item: Item) -> String {
        switch self {
        case .entry:
            if isTOTP(in: item) { return "TOTP code" }
            let label = label(in: item)
            // "Security code" → "security code", but "PIN" and "TOTP" stay as they are.
            guard let first = label.first, label.dropFirst().first?.isLowercase == true else { return label }
            return first.lowercased() + label.dropFirst()
        case .custom: return "field “\(label(in: item))”"
        case .origin: return "origin"
        case .tags: return "tags"
        case .notes: return "notes"
        case .file(let id): return "file “\(TerminalText.line(item.attachments.first { $0.id == id }?.name ?? ""))”"
        }
    }

    /// The TOTP generator of a TOTP field; nil for any other field, or one without a secret.
    func totp(in item: Item) throws(CoreError) -> TOTP? {
        switch self {
        case .entry where isTOTP(in: item): return try item.totpGenerator()
        case .custom(let id) where isTOTP(in: item):
            guard let secret = item.entry[custom: id]?.value, !secret.isEmpty else { return nil }
            do {
                return try TOTP(parsing: secret)
            } catch {
                throw .invalidTOTP(error)
            }
        default: return nil
        }
    }

    /// The stored value (raw: what a copy puts on the clipboard); nil when the item has no such field.
    func storedValue(in item: Item) -> String? {
        switch self {
        case .entry(let name): return item.entry[field: name]
        case .custom(let id): return item.entry[custom: id]?.value
        case .origin(let index): return item.origins.indices.contains(index) ? item.origins[index] : nil
        case .tags: return item.tags.joined(separator: ", ")
        case .notes: return item.entry.notes
        case .file: return nil
        }
    }

    /// What copying the field puts on the clipboard at `now`: its value, or a TOTP field's current
    /// code; nil when there is nothing to copy.
    func copiedValue(in item: Item, at now: Date) -> String? {
        if isTOTP(in: item) { return (try? totp(in: item))??.code(at: now) }
        return storedValue(in: item).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Why the field cannot be copied, or nil when it can.
    func copyProblem(in item: Item) -> String? {
        if case .file = self { return "A file is not copied: w saves it to a path." }
        if isTOTP(in: item) {
            do {
                return try totp(in: item) == nil ? "The field holds no TOTP secret." : nil
            } catch {
                return error.description
            }
        }
        return storedValue(in: item)?.isEmpty == false ? nil : "The field is empty: nothing to copy."
    }
}

extension DetailField {
    /// The item's file this line shows; nil for any other field, or a file the item no longer has.
    func attachment(in item: Item) -> Attachment? {
        guard case .file(let id) = self else { return nil }
        return item.attachments.first { $0.id == id }
    }
}
