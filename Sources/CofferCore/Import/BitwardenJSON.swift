import Foundation

/// Bitwarden's unencrypted JSON export: `{"encrypted": false, "folders": [...], "items": [...]}`.
///
/// Each item type becomes a kind (architecture §13): 1 login (username, password, TOTP, URIs; its
/// password history becomes the item's history), 2 secure note, 3 card, 4 identity, each with
/// the kind's fields (`cardFields`, `identityFields`); 5 SSH key is an `ssh-key` item when its
/// private key is an OpenSSH key file Coffer reads (the public key and fingerprint are written
/// from it), else a secure note whose keys are custom fields (the private key hidden).
/// Bitwarden's custom fields are custom fields (text, hidden; a boolean as the text "true" or
/// "false"); a linked field, which
/// only points at another field of the item, is named in the notes. What has no field of its own
/// (a card's brand, an identity's title and username) is a custom text field; anything else with
/// a value goes to the notes, labelled. The folder is the tags ("Work/Servers" gives two).
public enum BitwardenJSON {
    static let typeNames = [1: "Login", 2: "Secure note", 3: "Card", 4: "Identity", 5: "SSH key"]
    /// The kind each item type becomes; an SSH key whose private key Coffer cannot read stays a
    /// secure note (`sshKey(of:)`).
    static let kinds = [1: ItemKind.login, 2: .note, 3: .card, 4: .identity, 5: .note]
    /// A card's members and the card fields they fill.
    static let cardFields = [
        "cardholderName": "cardholder", "number": "number", "expMonth": "expiry_month", "expYear": "expiry_year", "code": "code",
    ]
    /// An identity's members and the identity fields they fill (`address1`–`address3` together fill `address`).
    static let identityFields = [
        "firstName": "first_name", "middleName": "middle_name", "lastName": "last_name", "email": "email", "phone": "phone",
        "company": "company", "city": "city", "state": "region", "postalCode": "postal_code", "country": "country",
        "ssn": "national_id", "passportNumber": "passport", "licenseNumber": "license",
    ]
    /// Members with no field in the kind, kept as custom fields: (member, label, type), in this order.
    static let customMembers: [String: [(member: String, label: String, type: CustomField.FieldType)]] = [
        "card": [("brand", "Brand", .text)],
        "identity": [("title", "Title", .text), ("username", "Username", .text)],
        "sshKey": [("privateKey", "Private key", .hidden), ("publicKey", "Public key", .text), ("keyFingerprint", "Fingerprint", .text)],
    ]
    /// What a linked custom field (type 3) points at, by its `linkedId`.
    static let linkedNames = [
        100: "Username", 101: "Password",
        300: "Cardholder name", 301: "Expiry month", 302: "Expiry year", 303: "Security code", 304: "Brand", 305: "Number",
        400: "Title", 401: "Middle name", 402: "Address 1", 403: "Address 2", 404: "Address 3", 405: "City",
        406: "State", 407: "Postal code", 408: "Country", 409: "Company", 410: "Email", 411: "Phone", 412: "SSN",
        413: "Username", 414: "Passport number", 415: "License number", 416: "First name", 417: "Last name", 418: "Full name",
    ]
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
            draft.kind = kinds[type]?.name ?? Entry.loginKind
            draft.notes = item["notes"] as? String ?? ""
            if let folderID = item["folderId"] as? String, let folder = folders[folderID] { draft.addTags(path: folder) }
            draft.created = (item["creationDate"] as? String).flatMap(ImportDraft.time(iso8601:))
            draft.modified = (item["revisionDate"] as? String).flatMap(ImportDraft.time(iso8601:))
            let sshKey = type == 5 ? Self.sshKey(of: item) : nil
            if let sshKey {
                draft.kind = ItemKind.sshKey.name
                var entry = Entry(kind: ItemKind.sshKey.name)
                sshKey.store(in: &entry)
                for (name, value) in entry.fields.sorted(by: { $0.key < $1.key }) { draft.setField(name, value) }
            } else if type == 5 {
                draft.extraNotes.append("Type: \(typeName)")
            }
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
            if let card = item["card"] as? [String: Any] {
                read(card, member: "card", fields: cardFields, into: &draft)
            }
            if let identity = item["identity"] as? [String: Any] {
                let address = ["address1", "address2", "address3"].map { text(identity[$0]).trimmingCharacters(in: .whitespaces) }
                draft.setField("address", address.filter { !$0.isEmpty }.joined(separator: ", "))
                read(identity, member: "identity", fields: identityFields, except: ["address1", "address2", "address3"], into: &draft)
            }
            if let key = item["sshKey"] as? [String: Any] {
                if sshKey != nil {
                    notes(of: key, except: ["privateKey", "publicKey", "keyFingerprint"], into: &draft)
                } else {
                    read(key, member: "sshKey", fields: [:], into: &draft)
                }
            }
            if let note = item["secureNote"] as? [String: Any] {
                notes(of: note, except: ["type"], into: &draft)
            }
            for field in item["fields"] as? [Any] ?? [] {
                guard let field = field as? [String: Any] else { continue }
                customField(field, into: &draft)
            }
            draft.history = history(item["passwordHistory"], current: draft.password)
            for (key, value) in item.sorted(by: { $0.key < $1.key }) where !handled.contains(key) {
                draft.note(key, text(value))
            }
            drafts.append(draft)
        }
        return drafts
    }

    /// The key of an SSH key item, when its private key is an unencrypted OpenSSH key file.
    static func sshKey(of item: [String: Any]) -> SSHKey? {
        guard let key = item["sshKey"] as? [String: Any], let text = key["privateKey"] as? String else { return nil }
        return try? OpenSSHKeyFile.read(text)
    }

    /// A card's, identity's or SSH key's members: those in `fields` fill the kind's fields, those
    /// in `customMembers` become custom fields, any other with a value goes to the notes.
    static func read(_ object: [String: Any], member: String, fields: [String: String], except: Set<String> = [],
                     into draft: inout ImportDraft) {
        let custom = customMembers[member] ?? []
        for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
            draft.setField(field, text(object[name]))
        }
        for (name, label, type) in custom {
            let value = text(object[name])
            if !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { draft.addCustom(label, value, type: type) }
        }
        notes(of: object, except: except.union(fields.keys).union(custom.map(\.member)), into: &draft)
    }

    /// One of Bitwarden's custom fields: 0 text, 1 hidden, 2 boolean (the text "true" or "false"),
    /// 3 linked (a pointer to another field of the item, named in the notes). Another type is kept as text.
    static func customField(_ field: [String: Any], into draft: inout ImportDraft) {
        let name = field["name"] as? String ?? ""
        switch field["type"] as? Int {
        case 1: draft.addCustom(name, text(field["value"]), type: .hidden)
        case 2:
            let value = field["value"] as? String ?? (field["value"] as? Bool).map { $0 ? "true" : "false" } ?? ""
            draft.addCustom(name, value, type: .text)
        case 3:
            let target = (field["linkedId"] as? Int).map { linkedNames[$0] ?? "field \($0)" } ?? "another field"
            draft.extraNotes.append("Linked field \(name.isEmpty ? "Field" : name): \(target)")
        default: draft.addCustom(name, text(field["value"]), type: .text)
        }
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
