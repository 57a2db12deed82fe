import Foundation

/// The JSON shapes items take outside the vault: `list --json`, `show --json`, and Coffer's own
/// export/import format (an array of items shaped as `show --json --reveal` prints them).
public enum ItemExchange {
    public enum Badge: String, Sendable, CaseIterable {
        case conflict, merged, pending, disabled, waitingForKey = "waiting-for-key"
    }

    /// The list shape: `{id, kind, title, username, origins, tags, disabled, created, modified, badges}`.
    public static func summary(_ item: Item, badges: [Badge]) -> [String: Any] {
        [
            "id": item.id, "kind": item.entry.kind, "title": item.title, "username": item.entry.username,
            "origins": item.origins, "tags": item.tags, "disabled": item.disabled, "created": item.created.iso8601,
            "modified": item.modified.iso8601, "badges": badges.map(\.rawValue),
        ]
    }

    /// The show shape: the summary plus notes, the kind's other fields, custom fields, last_used
    /// and history; secrets only when `reveal`. Without `reveal`, secret fields are left out,
    /// secret custom fields lose their value, and history patches have their secrets masked.
    public static func detail(_ item: Item, badges: [Badge], reveal: Bool) -> [String: Any] {
        var object = summary(item, badges: badges)
        object["notes"] = item.entry.notes
        let fields = item.entry.fields.filter { reveal || !ItemField.isSecret($0.key) }
        if !fields.isEmpty { object["fields"] = fields }
        if !item.attachments.isEmpty { object["attachments"] = item.attachments.map(attachmentSummary) }
        if !item.entry.custom.isEmpty {
            object["custom"] = item.entry.custom.map { field -> [String: Any] in
                var shown: [String: Any] = ["id": field.id, "label": field.label, "type": field.type]
                if reveal || !field.isSecret { shown["value"] = field.value }
                return shown
            }
        }
        object["last_used"] = item.lastUsed?.iso8601 ?? NSNull()
        object["history"] = item.history.map { entry -> [String: Any] in
            var shown: [String: Any] = ["created": entry.created.iso8601,
                                        "patch": foundationValue(reveal ? entry.patch : masked(entry.patch))]
            if let tags = entry.tags { shown["tags"] = tags }
            return shown
        }
        if reveal {
            object["password"] = item.entry.password
            object["totp"] = item.entry.totp ?? NSNull()
        }
        return object
    }

    /// A file as `--json` shows it: `{id, name, size, sha256, added}`, never its contents.
    public static func attachmentSummary(_ attachment: Attachment) -> [String: Any] {
        ["id": attachment.id, "name": attachment.name, "size": attachment.size, "sha256": attachment.sha256,
         "added": attachment.added.iso8601]
    }

    public static func badges(of listed: ListedItem) -> [Badge] {
        var badges: [Badge] = []
        if listed.hasConflict { badges.append(.conflict) }
        if listed.needsReview { badges.append(.merged) }
        if listed.hasLocalChange { badges.append(.pending) }
        if listed.item?.disabled == true { badges.append(.disabled) }
        if listed.state == .waitingForKey { badges.append(.waitingForKey) }
        return badges
    }

    /// Pretty, key-sorted JSON text, every `--json` output's: DEL, C1 and bidi controls are written
    /// as `\uXXXX` (the same values), so no raw byte of it drives a terminal. The export asks for
    /// them as they are (`escapingTerminalControls: false`): a file for programs keeps its bytes.
    public static func text(_ value: Any, escapingTerminalControls: Bool = true) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        let text = String(decoding: data, as: UTF8.self)
        return escapingTerminalControls ? TerminalText.jsonEscaped(text) : text
    }

    // MARK: Import

    /// Parses an export file: every item is checked and every problem reported, or nothing is returned.
    ///
    /// A missing `id` gets a new one; missing times become `now`. Unknown members are refused so a
    /// file of another format is not half understood.
    public static func parseExport(_ data: Data, now: Timestamp) throws -> [Item] {
        try parseExportWithFiles(data, now: now).items
    }

    /// A file an export carries with its item (`attachments[].data`, base64); nil without its bytes.
    public struct ExportedFile: Decodable, Sendable {
        public var name: String
        public var data: Data?
    }

    /// `parseExport`, with the files each item carries, by item id, for the import to attach.
    public static func parseExportWithFiles(_ data: Data, now: Timestamp) throws -> (items: [Item], files: [String: [ExportedFile]]) {
        let elements: [LenientElement]
        do {
            elements = try JSONDecoder().decode([LenientElement].self, from: data)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw CoreError.invalidImport(reason: "the file must hold a JSON array of items")
        } catch {
            throw CoreError.invalidImport(reason: "the file is not valid JSON")
        }
        var items: [Item] = []
        var files: [String: [ExportedFile]] = [:]
        var problems: [String] = []
        for (index, element) in elements.enumerated() {
            switch element.result {
            case .success(let exported):
                let item = exported.item(now: now)
                let found = ItemValidation.problems(in: item)
                if found.isEmpty {
                    items.append(item)
                    if let carried = exported.attachments, !carried.isEmpty { files[item.id, default: []] += carried }
                } else {
                    problems.append("item \(index + 1): " + found.map(\.description).joined(separator: ", "))
                }
            case .failure(let reason):
                problems.append("item \(index + 1): \(reason)")
            }
            if problems.count >= 10 { break }
        }
        var seen = Set<String>()
        for item in items where !seen.insert(item.id).inserted {
            problems.append("id \(item.id) appears more than once")
        }
        guard problems.isEmpty else { throw CoreError.invalidImport(reason: problems.joined(separator: "; ")) }
        return (items, files)
    }

    /// One array element, decoded on its own so one bad item does not hide the others' problems.
    struct LenientElement: Decodable {
        let result: Result<ExportedItem, ImportProblem>

        init(from decoder: Decoder) throws {
            do {
                result = .success(try ExportedItem(from: decoder))
            } catch let problem as ImportProblem {
                result = .failure(problem)
            } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
                let field = context.codingPath.map(\.stringValue).filter { Int($0) == nil }.last ?? "the item"
                result = .failure(ImportProblem(reason: "\"\(field)\" has the wrong type"))
            } catch let DecodingError.dataCorrupted(context) {
                result = .failure(ImportProblem(reason: context.debugDescription))
            } catch {
                result = .failure(ImportProblem(reason: "is malformed"))
            }
        }
    }

    struct ImportProblem: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// An item as the export file holds it (the `show --json --reveal` shape).
    struct ExportedItem: Decodable {
        var id: String?
        var kind: String?
        var title: String
        var fields: [String: String]?
        var custom: [CustomField]?
        var username: String?
        var password: String?
        var notes: String?
        var totp: String?
        var origins: [String]?
        var tags: [String]?
        var disabled: Bool?
        var created: Timestamp?
        var modified: Timestamp?
        var lastUsed: Timestamp?
        var history: [HistoryEntry]?
        var attachments: [ExportedFile]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            // `attachments`: the files, with their bytes (`data`) in an export; `show --json` lists them without.
            case id, kind, title, fields, custom, username, password, notes, totp, origins, tags, disabled, created, modified,
                 history, badges, attachments
            case lastUsed = "last_used"
        }

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: Decoder) throws {
            let names = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            if let unknown = names.first(where: { CodingKeys(rawValue: $0) == nil }) {
                throw ImportProblem(reason: "has an unknown member \"\(unknown)\"")
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard container.contains(.title) else { throw ImportProblem(reason: "lacks \"title\"") }
            id = try container.decodeIfPresent(String.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            kind = try container.decodeIfPresent(String.self, forKey: .kind)
            fields = try container.decodeIfPresent([String: String].self, forKey: .fields)
            custom = try container.decodeIfPresent([CustomField].self, forKey: .custom)
            if let names = fields?.keys, let reserved = names.first(where: ItemKind.entryMembers.contains) {
                throw ImportProblem(reason: "has a field named \"\(reserved)\" in \"fields\"; it goes at the top")
            }
            username = try container.decodeIfPresent(String.self, forKey: .username)
            password = try container.decodeIfPresent(String.self, forKey: .password)
            notes = try container.decodeIfPresent(String.self, forKey: .notes)
            totp = try container.decodeIfPresent(String.self, forKey: .totp)
            origins = try container.decodeIfPresent([String].self, forKey: .origins)
            tags = try container.decodeIfPresent([String].self, forKey: .tags)
            disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled)
            created = try container.decodeIfPresent(Timestamp.self, forKey: .created)
            modified = try container.decodeIfPresent(Timestamp.self, forKey: .modified)
            lastUsed = try container.decodeIfPresent(Timestamp.self, forKey: .lastUsed)
            history = try container.decodeIfPresent([HistoryEntry].self, forKey: .history)
            attachments = try container.decodeIfPresent([ExportedFile].self, forKey: .attachments)
            if let history, history.contains(where: { $0.patch.objectValue == nil }) {
                throw ImportProblem(reason: "has a history entry whose patch is not an object")
            }
        }

        func item(now: Timestamp) -> Item {
            let created = created ?? now
            return Item(id: id ?? Item.newID(), title: title, origins: origins ?? [], tags: tags ?? [],
                        entry: Entry(kind: kind ?? Entry.loginKind, username: username ?? "", password: password ?? "",
                                     notes: notes ?? "", totp: totp, fields: fields ?? [:], custom: custom ?? []),
                        disabled: disabled ?? false, created: created, modified: modified ?? created,
                        lastUsed: lastUsed, history: history ?? [])
        }
    }

    /// The export shape of an item (everything, secrets included).
    public static func exportObject(_ item: Item) -> [String: Any] {
        var object = detail(item, badges: [], reveal: true)
        object.removeValue(forKey: "badges")
        return object
    }

    // MARK: JSONValue bridging

    static func masked(_ patch: JSONValue) -> JSONValue {
        guard case .object(var members) = patch else { return patch }
        for name in members.keys where ItemField.isSecret(name) && members[name] != .null {
            members[name] = .string("••••••••")
        }
        return .object(members)
    }

    static func foundationValue(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .number(let number): return number
        case .string(let text): return text
        case .array(let elements): return elements.map(foundationValue)
        case .object(let members): return members.mapValues(foundationValue)
        }
    }
}
