import Foundation

/// Coffer's items as a KDBX 4 file KeePassXC opens (architecture §13): ChaCha20, Argon2id, gzip.
///
/// Every item is an entry of one group, "Coffer": its title, username, password (protected),
/// first origin (`URL`; the others `KP2A_URL_n`, as KeePassXC writes them), notes, TOTP as
/// KeePassXC's `otp` attribute (protected), a kind's other fields by their labels (secret ones
/// protected), custom fields by their labels (hidden ones protected), tags as KeePass's `Tags`,
/// times, its files as attachments in the inner header, and its history as the entry's past
/// versions. Not written: its kind's name (KeePass entries have no kind), disabled items' flag.
public enum KeePassKDBXExport {
    /// An item with its files' names and bytes.
    public struct Entry: Sendable {
        public var item: Item
        public var files: [(name: String, data: Data)]

        public init(item: Item, files: [(name: String, data: Data)]) {
            self.item = item
            self.files = files
        }
    }

    /// The file's bytes, its key derived with Argon2id at `memory` bytes and `iterations` passes.
    public static func write(_ entries: [Entry], credentials: KDBXCredentials, memory: Int, iterations: Int) throws(CoreError) -> Data {
        try write(entries, credentials: credentials, writer: KDBXWriter(derivation: KDBXWriter.argon2id(memory: memory, iterations: iterations)))
    }

    /// The key derivations and ciphers the tests have KeePassXC open (the export itself writes
    /// Argon2id and ChaCha20): `kdf` is argon2d, argon2id or aes-kdf, at quick settings.
    package static func write(_ entries: [Entry], credentials: KDBXCredentials, kdf: String, isAES: Bool) throws(CoreError) -> Data {
        let derivation: KDBXKeyDerivation
        switch kdf {
        case "argon2d": derivation = .argon2(isHybrid: false, salt: KDBXWriter.random(32), memory: 16 << 20, iterations: 2, parallelism: 2, version: 0x13)
        case "argon2id": derivation = .argon2(isHybrid: true, salt: KDBXWriter.random(32), memory: 16 << 20, iterations: 2, parallelism: 2, version: 0x13)
        default: derivation = .aes(seed: KDBXWriter.random(32), rounds: 10_000)
        }
        var writer = KDBXWriter(derivation: derivation)
        writer.cipher = isAES ? .aes256 : .chacha20
        return try write(entries, credentials: credentials, writer: writer)
    }

    private static func write(_ entries: [Entry], credentials: KDBXCredentials, writer: KDBXWriter) throws(CoreError) -> Data {
        do {
            var document = KeePassXMLWriter(stream: try writer.innerStream())
            var binaries: [Data] = []
            for entry in entries {
                let references = entry.files.map { file -> (String, Int) in
                    binaries.append(file.data)
                    return (file.name, binaries.count - 1)
                }
                document.add(entry.item, files: references)
            }
            return Data(try writer.write(xml: document.finish(), binaries: binaries, credentials: credentials))
        } catch {
            throw CoreError.invalidImport(reason: "the KDBX file could not be written: \(error.reason)")
        }
    }
}

/// The inner XML of a KDBX 4 file, written entry by entry; protected values are hidden with the
/// inner stream in document order, the order a reader reveals them.
struct KeePassXMLWriter {
    private var text = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <KeePassFile><Meta><Generator>Coffer</Generator><DatabaseName>Coffer</DatabaseName><RecycleBinEnabled>False</RecycleBinEnabled></Meta>
        <Root><Group><UUID>\(KeePassXMLWriter.uuid(nil))</UUID><Name>Coffer</Name>

        """
    private let stream: KDBXInnerStream

    init(stream: KDBXInnerStream) {
        self.stream = stream
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
        if protect {
            let hidden = Data(stream.reveal(Array(value.utf8))).base64EncodedString()
            text += "<Value Protected=\"True\">\(hidden)</Value></String>\n"
        } else {
            text += "<Value>\(Self.escaped(value))</Value></String>\n"
        }
    }

    func finish() -> Data {
        Data((text + "</Group></Root></KeePassFile>\n").utf8)
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
