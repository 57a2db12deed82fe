/// Writes an item as the JSON that `JSONEncoder` wrote with `[.sortedKeys, .withoutEscapingSlashes]`,
/// byte for byte, straight into a byte array.
///
/// Members are written in sorted order by hand; absent optionals (`last_used`, `totp`) are left out.
struct ItemJSONWriter {
    private var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// The bytes written, handed over so the caller holds the only copy (and can wipe it).
    mutating func takeBytes() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &bytes)
        return taken
    }

    mutating func write(_ item: Item) throws {
        // A newer version's members interleave with ours in sorted order: the general path.
        guard item.extra.isEmpty else { return try value(Self.jsonValue(of: item)) }
        if item.attachments.isEmpty {
            raw(#"{"created":"#)
        } else {
            raw(#"{"attachments":"#)
            try value(.array(item.attachments.map(Self.jsonValue)))
            raw(#","created":"#)
        }
        timestamp(item.created)
        raw(#","disabled":"#)
        raw(item.disabled ? "true" : "false")
        raw(#","entry":"#)
        try entry(item.entry)
        raw(#","history":["#)
        for (index, step) in item.history.enumerated() {
            raw(index == 0 ? #"{"created":"# : #",{"created":"#)
            timestamp(step.created)
            raw(#","patch":"#)
            try value(step.patch)
            if let tags = step.tags {
                raw(#","tags":"#)
                try value(.array(tags.map(JSONValue.string)))
            }
            raw("}")
        }
        raw(#"],"id":"#)
        string(item.id)
        if let lastUsed = item.lastUsed {
            raw(#","last_used":"#)
            timestamp(lastUsed)
        }
        raw(#","modified":"#)
        timestamp(item.modified)
        raw(#","origins":"#)
        strings(item.origins)
        raw(#","tags":"#)
        strings(item.tags)
        if !item.times.isEmpty {
            raw(#","times":{"#)
            for (index, (name, stamp)) in item.times.sorted.enumerated() {
                if index > 0 { raw(",") }
                string(name)
                raw(#":{"at":"#)
                timestamp(stamp.at)
                raw(#","by":"#)
                string(stamp.by)
                raw("}")
            }
            raw("}")
        }
        raw(#","title":"#)
        string(item.title)
        raw("}")
    }

    /// A login's entry by hand; one with a kind's fields, custom fields or a newer version's
    /// members through its JSON value (sorted with the rest).
    private mutating func entry(_ entry: Entry) throws {
        guard entry.fields.isEmpty, entry.custom.isEmpty, entry.extra.isEmpty else { return try value(entry.jsonValue) }
        raw(#"{"kind":"#)
        string(entry.kind)
        raw(#","notes":"#)
        string(entry.notes)
        raw(#","password":"#)
        string(entry.password)
        if let totp = entry.totp {
            raw(#","totp":"#)
            string(totp)
        }
        raw(#","username":"#)
        string(entry.username)
        raw("}")
    }

    /// The whole item as a JSON value: the same members `write` writes, plus `extra`.
    static func jsonValue(of item: Item) -> JSONValue {
        var members = item.extra
        if !item.attachments.isEmpty { members["attachments"] = .array(item.attachments.map(jsonValue)) }
        members["created"] = .string(item.created.iso8601)
        members["disabled"] = .bool(item.disabled)
        members["entry"] = item.entry.jsonValue
        members["history"] = .array(item.history.map { step in
            var members: [String: JSONValue] = ["created": .string(step.created.iso8601), "patch": step.patch]
            if let tags = step.tags { members["tags"] = .array(tags.map(JSONValue.string)) }
            return .object(members)
        })
        members["id"] = .string(item.id)
        if let lastUsed = item.lastUsed { members["last_used"] = .string(lastUsed.iso8601) }
        members["modified"] = .string(item.modified.iso8601)
        members["origins"] = .array(item.origins.map(JSONValue.string))
        members["tags"] = .array(item.tags.map(JSONValue.string))
        if !item.times.isEmpty {
            members["times"] = .object(Dictionary(uniqueKeysWithValues: item.times.sorted.map {
                ($0.name, JSONValue.object(["at": .string($0.stamp.at.iso8601), "by": .string($0.stamp.by)]))
            }))
        }
        members["title"] = .string(item.title)
        return .object(members)
    }

    static func jsonValue(of attachment: Attachment) -> JSONValue {
        .object(["added": .string(attachment.added.iso8601), "id": .string(attachment.id), "name": .string(attachment.name),
                 "sha256": .string(attachment.sha256), "size": .number(Double(attachment.size))])
    }

    mutating func integer(_ value: Int64) {
        var text = String(value)
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func timestamp(_ time: Timestamp) {
        bytes.append(UInt8(ascii: "\""))
        time.appendISO8601(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func strings(_ texts: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, text) in texts.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(text)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A string with `"`, `\` and control characters escaped (short forms where JSON has them);
    /// everything else, `/` and non-ASCII included, as is.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                appendEscape(for: byte)
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: bytes.append(UInt8(ascii: "\""))
        case 0x5C: bytes.append(UInt8(ascii: "\\"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                      hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }

    /// A history patch. Object members in byte order; numbers as Swift prints them, without a
    /// trailing ".0" (what `JSONEncoder` did); NaN and infinity cannot be written.
    mutating func value(_ value: JSONValue) throws {
        switch value {
        case .null: raw("null")
        case .bool(let flag): raw(flag ? "true" : "false")
        case .number(let number):
            guard number.isFinite else { throw ItemJSONError.unencodableNumber }
            var text = number.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
        case .string(let text): string(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try self.value(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            // UTF-8 byte order, not `String`'s `<` (which compares canonically: "e\u{301}" as "é").
            let names = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, name) in names.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                string(name)
                bytes.append(UInt8(ascii: ":"))
                try self.value(members[name] ?? .null)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}
