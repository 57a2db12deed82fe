import Foundation

/// Bitwarden's unencrypted JSON export: `{"encrypted": false, "folders": [...], "items": [...]}`.
///
/// Every item type is imported (1 login, 2 secure note, 3 card, 4 identity, 5 SSH key): a login's
/// username, password, TOTP and URIs have fields; its password history becomes the item's history;
/// the card, identity and SSH key members, custom fields and anything else with a value go to the
/// notes, labelled. The folder is the tags ("Work/Servers" gives two).
public enum BitwardenJSON {
    static let typeNames = [1: "Login", 2: "Secure note", 3: "Card", 4: "Identity", 5: "SSH key"]
    /// Members read into fields, or ids that mean nothing outside Bitwarden.
    static let handled: Set<String> = [
        "id", "organizationId", "folderId", "type", "name", "notes", "favorite", "fields", "login", "secureNote",
        "card", "identity", "sshKey", "collectionIds", "revisionDate", "creationDate", "passwordHistory", "reprompt",
    ]

    public static func drafts(_ data: Data, file: String) throws(CoreError) -> [ImportDraft] {
        func refuse(_ reason: String) -> CoreError { CoreError.invalidImport(reason: "\(file) \(reason)") }
        guard let root = try? JSONSerialization.jsonObject(with: data) else {
            throw refuse("is not valid JSON")
        }
        guard let export = root as? [String: Any], let items = export["items"] as? [Any] else {
            throw refuse("is not a Bitwarden export: it has no \"items\" array")
        }
        if export["encrypted"] as? Bool == true {
            throw refuse("is an encrypted Bitwarden export; export it again as unencrypted JSON")
        }
        var folders: [String: String] = [:]
        for folder in export["folders"] as? [Any] ?? [] {
            if let folder = folder as? [String: Any], let id = folder["id"] as? String, let name = folder["name"] as? String {
                folders[id] = name
            }
        }
        var drafts: [ImportDraft] = []
        for (index, element) in items.enumerated() {
            let place = "item \(index + 1)"
            guard let item = element as? [String: Any] else { throw refuse("\(place): is not an object") }
            guard let name = item["name"] as? String else { throw refuse("\(place): \"name\" is missing or not text") }
            guard let type = item["type"] as? Int, let typeName = typeNames[type] else {
                throw refuse("\(place) (\(name)): \"type\" is missing or unknown")
            }
            var draft = ImportDraft(place: "\(place) (\(name))")
            draft.title = name
            draft.notes = item["notes"] as? String ?? ""
            if let folderID = item["folderId"] as? String, let folder = folders[folderID] { draft.addTags(path: folder) }
            draft.created = (item["creationDate"] as? String).flatMap(ImportDraft.time(iso8601:))
            draft.modified = (item["revisionDate"] as? String).flatMap(ImportDraft.time(iso8601:))
            if type != 1 { draft.extraNotes.append("Type: \(typeName)") }
            if item["favorite"] as? Bool == true { draft.extraNotes.append("Favorite: yes") }
            if item["reprompt"] as? Int == 1 { draft.extraNotes.append("Master password re-prompt: yes") }
            if let login = item["login"] as? [String: Any] {
                draft.username = login["username"] as? String ?? ""
                draft.password = login["password"] as? String ?? ""
                draft.totp = login["totp"] as? String ?? ""
                for uri in login["uris"] as? [Any] ?? [] {
                    guard let uri = uri as? [String: Any], let address = uri["uri"] as? String else { continue }
                    draft.addOrigin(address)
                    // Bitwarden's per-URI matching rule has no home in Coffer; keep it readable.
                    draft.note("URI match for \(address)", text(uri["match"]))
                }
                notes(of: login, except: ["username", "password", "totp", "uris"], into: &draft)
            }
            for member in ["card", "identity", "sshKey", "secureNote"] {
                if let object = item[member] as? [String: Any] {
                    notes(of: object, except: member == "secureNote" ? ["type"] : [], into: &draft)
                }
            }
            for field in item["fields"] as? [Any] ?? [] {
                guard let field = field as? [String: Any] else { continue }
                draft.note(field["name"] as? String ?? "Field", text(field["value"]))
            }
            draft.history = history(item["passwordHistory"], current: draft.password)
            for (key, value) in item.sorted(by: { $0.key < $1.key }) where !handled.contains(key) {
                draft.note(key, text(value))
            }
            drafts.append(draft)
        }
        return drafts
    }

    /// Each member with a value as a `Label: value` note line (`expMonth` -> "Exp month"), in key order.
    static func notes(of object: [String: Any], except: Set<String>, into draft: inout ImportDraft) {
        for (key, value) in object.sorted(by: { $0.key < $1.key }) where !except.contains(key) {
            draft.note(label(key), text(value))
        }
    }

    static func label(_ key: String) -> String {
        var label = ""
        for character in key {
            if character.isUppercase && !label.isEmpty { label += " " + character.lowercased() } else { label.append(character) }
        }
        return label.prefix(1).uppercased() + label.dropFirst()
    }

    /// Scalars as text; arrays and objects as compact JSON; null and empty ones as nothing.
    static func text(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return ""
        case let array as [Any] where array.isEmpty: return ""
        case let object as [String: Any] where object.isEmpty: return ""
        case let text as String: return text
        case let number as NSNumber: return number.stringValue
        case let value?:
            guard JSONSerialization.isValidJSONObject(value),
                  let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else { return "\(value)" }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Earlier passwords, newest first, as history entries: each patch turns the entry back into
    /// the one before it.
    static func history(_ value: Any?, current: String) -> [HistoryEntry] {
        let entries = (value as? [Any] ?? []).compactMap { $0 as? [String: Any] }.compactMap { entry -> (Timestamp, String)? in
            guard let password = entry["password"] as? String else { return nil }
            let time = (entry["lastUsedDate"] as? String).flatMap(ImportDraft.time(iso8601:)) ?? Timestamp(milliseconds: 0)
            return (time, password)
        }
        return entries.sorted { $0.0 > $1.0 }.prefix(Item.historyLimit).map {
            HistoryEntry(created: $0.0, patch: .object(["password": .string($0.1)]))
        }
    }
}
