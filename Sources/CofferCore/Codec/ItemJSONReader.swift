/// Reads an item from its plaintext JSON with `JSONScanner`, accepting what `JSONDecoder` accepted
/// for `Item`: members in any order, `last_used` and `totp` absent or null. A member named twice
/// is refused (the writer never does it; which one wins is a guess). Members this version does not
/// know — a newer version's — are kept (`Item.extra`, `Entry.fields`, `Entry.extra`), never dropped.
enum ItemJSONReader {
    static func item(from bytes: UnsafeBufferPointer<UInt8>) throws -> Item {
        var scanner = JSONScanner(bytes)
        let item = try readItem(&scanner)
        try scanner.expectEnd()
        return item
    }

    private static func readItem(_ scanner: inout JSONScanner) throws -> Item {
        var id: String?, title: String?, origins: [String]?, tags: [String]?, entry: Entry?, disabled: Bool?
        var created: Timestamp?, modified: Timestamp?, lastUsed: Timestamp?, history: [HistoryEntry]?
        var times = FieldTimes()
        var attachments: [Attachment] = []
        var extra: [String: JSONValue] = [:]
        var members = try MemberLoop<ItemMember>(&scanner, "an item")
        while let key = try members.nextKey(&scanner) {
            switch key {
            case .known(let name):
                switch name {
                case .id: id = try scanner.readString("id")
                case .title: title = try scanner.readString("title")
                case .origins: origins = try readStrings(&scanner, "origins")
                case .tags: tags = try readStrings(&scanner, "tags")
                case .entry: entry = try readEntry(&scanner)
                case .disabled: disabled = try scanner.readBool()
                case .created: created = try readTimestamp(&scanner, "created")
                case .modified: modified = try readTimestamp(&scanner, "modified")
                case .lastUsed: lastUsed = try scanner.skipNull() ? nil : try readTimestamp(&scanner, "last_used")
                case .history: history = try readHistory(&scanner)
                case .times: times = try readTimes(&scanner)
                case .attachments: attachments = try readAttachments(&scanner)
                }
            case .other(let name):
                guard extra.updateValue(try scanner.readValue(), forKey: name) == nil else { throw ItemJSONError.duplicateMember(name) }
            }
        }
        guard let id else { throw ItemJSONError.missingMember("id") }
        guard let title else { throw ItemJSONError.missingMember("title") }
        guard let origins else { throw ItemJSONError.missingMember("origins") }
        guard let tags else { throw ItemJSONError.missingMember("tags") }
        guard let entry else { throw ItemJSONError.missingMember("entry") }
        guard let disabled else { throw ItemJSONError.missingMember("disabled") }
        guard let created else { throw ItemJSONError.missingMember("created") }
        guard let modified else { throw ItemJSONError.missingMember("modified") }
        guard let history else { throw ItemJSONError.missingMember("history") }
        return Item(id: id, title: title, origins: origins, tags: tags, entry: entry, disabled: disabled,
                    created: created, modified: modified, lastUsed: lastUsed, history: history, times: times,
                    attachments: attachments, extra: extra)
    }

    /// `{"password": {"at": TIME, "by": DEVICE}, …}`, every name kept (a newer device's too).
    private static func readTimes(_ scanner: inout JSONScanner) throws -> FieldTimes {
        var times = FieldTimes()
        var members = 0
        var named = Set<String>()
        try scanner.enterObject("times")
        while let key = try scanner.nextKey(after: members) {
            members += 1
            let name = scanner.string(of: key)
            guard named.insert(name).inserted else { throw ItemJSONError.duplicateMember(name) }
            var at: Timestamp?, by: String?
            var stamp = try MemberLoop<StampMember>(&scanner, "a field time")
            while let member = try stamp.next(&scanner) {
                switch member {
                case .at: at = try readTimestamp(&scanner, "at")
                case .by: by = try scanner.readString("by")
                }
            }
            guard let at else { throw ItemJSONError.missingMember("at") }
            guard let by else { throw ItemJSONError.missingMember("by") }
            times.set(FieldStamp(at: at, by: by), named: name)
        }
        return times
    }

    /// The entry: a login's members by name, `custom` as its array; any other text member is a
    /// kind's field, any other value kept as it came.
    private static func readEntry(_ scanner: inout JSONScanner) throws -> Entry {
        var kind: String?, username: String?, password: String?, notes: String?, totp: String?
        var custom: [CustomField] = []
        var fields: [String: String] = [:]
        var extra: [String: JSONValue] = [:]
        var members = try MemberLoop<EntryMember>(&scanner, "entry")
        while let key = try members.nextKey(&scanner) {
            switch key {
            case .known(let name):
                switch name {
                case .kind: kind = try scanner.readString("kind")
                case .username: username = try scanner.readString("username")
                case .password: password = try scanner.readString("password")
                case .notes: notes = try scanner.readString("notes")
                case .totp: totp = try scanner.skipNull() ? nil : try scanner.readString("totp")
                case .custom: custom = try readCustomFields(&scanner)
                }
            case .other(let name):
                guard fields[name] == nil, extra[name] == nil else { throw ItemJSONError.duplicateMember(name) }
                if try scanner.peek() == UInt8(ascii: "\"") {
                    fields[name] = try scanner.readString(name)
                } else if try !scanner.skipNull() {
                    extra[name] = try scanner.readValue()
                }
            }
        }
        guard let kind else { throw ItemJSONError.missingMember("kind") }
        guard let username else { throw ItemJSONError.missingMember("username") }
        guard let password else { throw ItemJSONError.missingMember("password") }
        guard let notes else { throw ItemJSONError.missingMember("notes") }
        return Entry(kind: kind, username: username, password: password, notes: notes, totp: totp, fields: fields,
                     custom: custom, extra: extra)
    }

    private static func readCustomFields(_ scanner: inout JSONScanner) throws -> [CustomField] {
        var fields: [CustomField] = []
        try scanner.enterArray("custom")
        while try scanner.hasNextElement(after: fields.count) {
            var id: String?, label: String?, value: String?, type: String?
            var members = try MemberLoop<CustomFieldMember>(&scanner, "a custom field")
            while let member = try members.next(&scanner) {
                switch member {
                case .id: id = try scanner.readString("id")
                case .label: label = try scanner.readString("label")
                case .value: value = try scanner.readString("value")
                case .type: type = try scanner.readString("type")
                }
            }
            guard let id else { throw ItemJSONError.missingMember("id") }
            guard let label else { throw ItemJSONError.missingMember("label") }
            guard let value else { throw ItemJSONError.missingMember("value") }
            guard let type else { throw ItemJSONError.missingMember("type") }
            fields.append(CustomField(id: id, label: label, value: value, typeName: type))
        }
        return fields
    }

    private static func readAttachments(_ scanner: inout JSONScanner) throws -> [Attachment] {
        var attachments: [Attachment] = []
        try scanner.enterArray("attachments")
        while try scanner.hasNextElement(after: attachments.count) {
            var id: String?, name: String?, size: Double?, sha256: String?, added: Timestamp?
            var members = try MemberLoop<AttachmentMember>(&scanner, "an attachment")
            while let member = try members.next(&scanner) {
                switch member {
                case .id: id = try scanner.readString("id")
                case .name: name = try scanner.readString("name")
                // As JSONDecoder read an Int: any number written that is a whole one (`7e6` too).
                case .size: size = try scanner.readNumber()
                case .sha256: sha256 = try scanner.readString("sha256")
                case .added: added = try readTimestamp(&scanner, "added")
                }
            }
            guard let id else { throw ItemJSONError.missingMember("id") }
            guard let name else { throw ItemJSONError.missingMember("name") }
            guard let size else { throw ItemJSONError.missingMember("size") }
            guard let count = Int(exactly: size) else { throw ItemJSONError.malformed("size is not a whole number", offset: scanner.position) }
            guard let sha256 else { throw ItemJSONError.missingMember("sha256") }
            guard let added else { throw ItemJSONError.missingMember("added") }
            attachments.append(Attachment(id: id, name: name, size: count, sha256: sha256, added: added))
        }
        return attachments
    }

    private static func readHistory(_ scanner: inout JSONScanner) throws -> [HistoryEntry] {
        var history: [HistoryEntry] = []
        try scanner.enterArray("history")
        while try scanner.hasNextElement(after: history.count) {
            var created: Timestamp?, patch: JSONValue?, tags: [String]?
            var members = try MemberLoop<HistoryMember>(&scanner, "a history entry")
            while let name = try members.next(&scanner) {
                switch name {
                case .created: created = try readTimestamp(&scanner, "created")
                case .patch: patch = try scanner.readValue()
                case .tags: tags = try readStrings(&scanner, "tags")
                }
            }
            guard let created else { throw ItemJSONError.missingMember("created") }
            guard let patch else { throw ItemJSONError.missingMember("patch") }
            history.append(HistoryEntry(created: created, patch: patch, tags: tags))
        }
        return history
    }

    static func readStrings(_ scanner: inout JSONScanner, _ what: String) throws -> [String] {
        var strings: [String] = []
        try scanner.enterArray(what)
        while try scanner.hasNextElement(after: strings.count) { strings.append(try scanner.readString(what)) }
        return strings
    }

    private static func readTimestamp(_ scanner: inout JSONScanner, _ what: String) throws -> Timestamp {
        guard try scanner.peek() == UInt8(ascii: "\"") else { throw scanner.wrongType("\(what) as a string") }
        let start = scanner.position
        let token = try scanner.scanString(collecting: true)
        guard let time = scanner.withBytes(of: token, { Timestamp(iso8601Bytes: $0) }) else {
            throw ItemJSONError.malformed("\(what) is not an ISO-8601 UTC time", offset: start)
        }
        return time
    }
}
