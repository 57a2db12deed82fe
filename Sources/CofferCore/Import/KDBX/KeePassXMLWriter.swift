import Foundation

/// KeePass XML written entry by entry: the inner XML of a KDBX 4 file, whose protected values
/// are hidden with the inner stream in document order (the order a reader reveals them), or,
/// without a stream, an XML export whose protected values are plain and marked `ProtectInMemory`.
struct KeePassXMLWriter {
    /// The entries, between the head `finish` writes and the end.
    private var text = ""
    private let stream: KDBXInnerStream?

    init(stream: KDBXInnerStream?) {
        self.stream = stream
    }

    /// Adds every entry; returns the files in the order their `Ref` numbers them.
    mutating func add(_ entries: [KeePassKDBXExport.Entry]) -> [Data] {
        var binaries: [Data] = []
        for entry in entries {
            let references = entry.files.map { file -> (String, Int) in
                binaries.append(file.data)
                return (file.name, binaries.count - 1)
            }
            add(entry.item, files: references)
        }
        return binaries
    }

    mutating func add(_ item: Item, files: [(name: String, index: Int)]) {
        text += "<Entry><UUID>\(Self.uuid(item.id))</UUID>"
        if !item.tags.isEmpty { text += "<Tags>\(Self.escaped(item.tags.joined(separator: ";")))</Tags>" }
        text += "<Times><CreationTime>\(Self.time(item.created))</CreationTime>"
        text += "<LastModificationTime>\(Self.time(item.modified))</LastModificationTime>"
        if let lastUsed = item.lastUsed { text += "<LastAccessTime>\(Self.time(lastUsed))</LastAccessTime>" }
        text += "</Times>\n"
        addStrings(item, entry: item.entry)
        for (name, index) in files { text += "<Binary><Key>\(Self.escaped(name))</Key><Value Ref=\"\(index)\"/></Binary>\n" }
        // Past versions, oldest first as KeePass keeps them, each dated when it was saved: the
        // change before it, or the item's creation.
        let versions = ItemHistory.versions(of: item)
        if !versions.isEmpty {
            text += "<History>\n"
            for (index, version) in versions.enumerated().reversed() {
                let saved = index + 1 < versions.count ? versions[index + 1].created : item.created
                text += "<Entry><UUID>\(Self.uuid(item.id))</UUID><Times><CreationTime>\(Self.time(item.created))</CreationTime>"
                text += "<LastModificationTime>\(Self.time(saved))</LastModificationTime></Times>\n"
                addStrings(item, entry: version.entry)
                text += "</Entry>\n"
            }
            text += "</History>\n"
        }
        text += "</Entry>\n"
    }

    /// The strings of one version of `item`: its title and origins (which its history does not
    /// hold) and `entry`'s fields.
    private mutating func addStrings(_ item: Item, entry: Entry) {
        var used = Set<String>()
        func string(_ key: String, _ value: String, isProtected: Bool = false) {
            var key = key
            var number = 2
            while used.contains(key) { key = "\(key) (\(number))"; number += 1 }
            used.insert(key)
            add(key: key, value: value, isProtected: isProtected)
        }
        string("Title", item.title)
        string("UserName", entry.username)
        string("Password", entry.password, isProtected: true)
        string("URL", item.origins.first ?? "")
        string("Notes", entry.notes)
        for (index, origin) in item.origins.dropFirst().enumerated() { string("KP2A_URL_\(index + 1)", origin) }
        if let totp = entry.totp, !totp.isEmpty { string("otp", totp, isProtected: true) }
        if let kind = ItemKind.named(entry.kind) {
            for field in kind.fields where !["username", "password", "totp"].contains(field.name) {
                if let value = entry.fields[field.name], !value.isEmpty { string(field.label, value, isProtected: field.isSecret) }
            }
        } else {
            for (name, value) in entry.fields.sorted(by: { $0.key < $1.key }) { string(name, value) }
        }
        for field in entry.custom { string(field.label, field.value, isProtected: field.type == CustomField.FieldType.hidden.rawValue) }
    }

    private mutating func add(key: String, value: String, isProtected: Bool) {
        // A value XML cannot hold (a control character) goes protected: base64 holds any bytes.
        let protect = isProtected || value.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r" }
        text += "<String><Key>\(Self.escaped(key))</Key>"
        if protect, let stream {
            let hidden = Data(stream.reveal(Array(value.utf8))).base64EncodedString()
            text += "<Value Protected=\"True\">\(hidden)</Value></String>\n"
        } else if isProtected {
            text += "<Value ProtectInMemory=\"True\">\(Self.escaped(value))</Value></String>\n"
        } else {
            text += "<Value>\(Self.escaped(value))</Value></String>\n"
        }
    }

    /// The document; an XML export (no stream) carries `binaries` in `Meta/Binaries`.
    func finish(binaries: [Data] = []) -> Data {
        var head = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <KeePassFile><Meta><Generator>Coffer</Generator><DatabaseName>Coffer</DatabaseName><RecycleBinEnabled>False</RecycleBinEnabled>

            """
        if stream == nil && !binaries.isEmpty {
            head += "<Binaries>\n"
            for (index, binary) in binaries.enumerated() {
                head += "<Binary ID=\"\(index)\" Compressed=\"False\">\(binary.base64EncodedString())</Binary>\n"
            }
            head += "</Binaries>\n"
        }
        head += "</Meta><Root><Group><UUID>\(Self.uuid(nil))</UUID><Name>Coffer</Name>\n"
        return Data((head + text + "</Group></Root></KeePassFile>\n").utf8)
    }

    /// 16 bytes, base64: the item's UUID when its id is one, else random.
    static func uuid(_ id: String?) -> String {
        if let id, let uuid = UUID(uuidString: id) {
            return withUnsafeBytes(of: uuid.uuid) { Data($0) }.base64EncodedString()
        }
        return Data(KDBXWriter.random(16)).base64EncodedString()
    }

    /// KDBX 4's time: seconds since 0001-01-01, eight bytes little-endian, base64.
    static func time(_ time: Timestamp) -> String {
        let seconds = time.milliseconds / 1_000 + 62_135_596_800
        return Data(seconds.littleEndianBytes).base64EncodedString()
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case _ where scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r": continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
