/// Reads an item from its plaintext JSON with `JSONScanner`, accepting what `JSONDecoder` accepted
/// for `Item`: members in any order, unknown members ignored, `last_used` and `totp` absent or
/// null. A member named twice is refused (the writer never does it; which one wins is a guess).
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
        var seen = Members()
        try scanner.enterObject("an item")
        while let key = try scanner.nextKey(after: seen.count) {
            let name = scanner.withBytes(of: key) { ItemMember(bytes: $0) }
            guard let name else {
                seen.count += 1
                try scanner.skipValue()
                continue
            }
            try seen.insert(name)
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
                    created: created, modified: modified, lastUsed: lastUsed, history: history, times: times)
    }

    /// `{"password": {"at": TIME, "by": DEVICE}, …}`; a field name this version does not know (a
    /// newer device's) is skipped.
    private static func readTimes(_ scanner: inout JSONScanner) throws -> FieldTimes {
        var times = FieldTimes()
        var members = 0
        var named = Set<String>()
        try scanner.enterObject("times")
        while let key = try scanner.nextKey(after: members) {
            members += 1
            let name = scanner.string(of: key)
            guard named.insert(name).inserted else { throw ItemJSONError.duplicateMember(name) }
            guard let field = ItemField(rawValue: name), FieldTimes.timed.contains(field) else {
                try scanner.skipValue()
                continue
            }
            var at: Timestamp?, by: String?
            var seen = Members()
            try scanner.enterObject("a field time")
            while let key = try scanner.nextKey(after: seen.count) {
                guard let member = scanner.withBytes(of: key, { StampMember(bytes: $0) }) else {
                    seen.count += 1
                    try scanner.skipValue()
                    continue
                }
                try seen.insert(member)
                switch member {
                case .at: at = try readTimestamp(&scanner, "at")
                case .by: by = try scanner.readString("by")
                }
            }
            guard let at else { throw ItemJSONError.missingMember("at") }
            guard let by else { throw ItemJSONError.missingMember("by") }
            times[field] = FieldStamp(at: at, by: by)
        }
        return times
    }

    private static func readEntry(_ scanner: inout JSONScanner) throws -> Entry {
        var kind: String?, username: String?, password: String?, notes: String?, totp: String?
        var seen = Members()
        try scanner.enterObject("entry")
        while let key = try scanner.nextKey(after: seen.count) {
            let name = scanner.withBytes(of: key) { EntryMember(bytes: $0) }
            guard let name else {
                seen.count += 1
                try scanner.skipValue()
                continue
            }
            try seen.insert(name)
            switch name {
            case .kind: kind = try scanner.readString("kind")
            case .username: username = try scanner.readString("username")
            case .password: password = try scanner.readString("password")
            case .notes: notes = try scanner.readString("notes")
            case .totp: totp = try scanner.skipNull() ? nil : try scanner.readString("totp")
            }
        }
        guard let kind else { throw ItemJSONError.missingMember("kind") }
        guard let username else { throw ItemJSONError.missingMember("username") }
        guard let password else { throw ItemJSONError.missingMember("password") }
        guard let notes else { throw ItemJSONError.missingMember("notes") }
        return Entry(kind: kind, username: username, password: password, notes: notes, totp: totp)
    }

    private static func readHistory(_ scanner: inout JSONScanner) throws -> [HistoryEntry] {
        var history: [HistoryEntry] = []
        try scanner.enterArray("history")
        while try scanner.hasNextElement(after: history.count) {
            var created: Timestamp?, patch: JSONValue?
            var seen = Members()
            try scanner.enterObject("a history entry")
            while let key = try scanner.nextKey(after: seen.count) {
                let name = scanner.withBytes(of: key) { HistoryMember(bytes: $0) }
                guard let name else {
                    seen.count += 1
                    try scanner.skipValue()
                    continue
                }
                try seen.insert(name)
                switch name {
                case .created: created = try readTimestamp(&scanner, "created")
                case .patch: patch = try scanner.readValue()
                }
            }
            guard let created else { throw ItemJSONError.missingMember("created") }
            guard let patch else { throw ItemJSONError.missingMember("patch") }
            history.append(HistoryEntry(created: created, patch: patch))
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

/// Which known members an object has had, to refuse a repeat; `count` counts unknown ones too.
struct Members {
    var count = 0
    private var bits: UInt32 = 0

    mutating func insert<Member: ItemJSONMember>(_ member: Member) throws {
        let bit = UInt32(1) << UInt32(member.rawValue)
        guard bits & bit == 0 else { throw ItemJSONError.duplicateMember(member.name) }
        bits |= bit
        count += 1
    }
}
