import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What `KeePassXCXML` reads of a KeePass XML file: the groups, each entry with its past
/// versions, the recycle bin and the attachments' data (`Meta/Binaries`, or inside an entry).
/// Nothing else of the file is kept.
///
/// The file is a stranger's, so it is read defensively (architecture §13): UTF-8 only, no
/// document type declaration (so no entity of any kind beyond XML's five, nothing loaded from
/// outside), elements nested at most `depthLimit` deep, at most `entryLimit` entries and
/// `groupLimit` groups, at most `stringLimit` strings in an entry, and of an entry's history only
/// the newest `Item.historyLimit` versions. Any breach, and the first XML error, refuses the file
/// with one sentence. Behind the byte check, Foundation's parser (libxml2) loads no external
/// entity (`shouldResolveExternalEntities` false) and stops an entity expansion loop itself, and
/// takes no text, name or attribute over 10 MB.
struct KeePassXMLDocument {
    struct Group {
        var uuid = ""
        var name = ""
        /// The index of the enclosing group in `groups`; nil for the top group.
        var parent: Int?
    }

    /// One version of an entry: the current one, or a past one from its `History`.
    struct Version {
        var strings: [(key: String, value: String, isProtected: Bool)] = []
        /// Attachments by name, with the `Meta/Binaries` ID they refer to or their data inline.
        var attachments: [(name: String, reference: String?, inline: Binary?)] = []
        /// `Times` members by name (`CreationTime`, `Expires`, …), as written.
        var times: [String: String] = [:]
        var tags = ""
        var overrideURL = ""
        var autoTypeSequence = ""
        var autoTypeAssociations: [(window: String, sequence: String)] = []
        /// Past versions, oldest first (KeePass's order), the newest `Item.historyLimit` kept.
        var history: [Version] = []
    }

    struct Entry {
        /// The index of its group in `groups`.
        var group: Int
        var current: Version
    }

    var groups: [Group] = []
    var entries: [Entry] = []
    var recycleBinUUID = ""
    var binaries: [String: Binary] = [:]

    static let depthLimit = 100
    static let entryLimit = 100_000
    static let groupLimit = 100_000
    static let stringLimit = 1_000
    /// libxml2's `XML_ERR_INTERNAL_ERROR`.
    static let internalErrorCode = 1

    /// The document in `data`, or the one sentence (after the file's name) that says why not.
    /// A KDBX file's inner XML comes with its inner header's attachments (`binaries`, by index)
    /// and the stream that reveals its protected values.
    static func read(_ data: Data, binaries: [String: Binary] = [:], innerStream: KDBXInnerStream? = nil) -> Result<KeePassXMLDocument, Refusal> {
        if let refusal = Refusal.beforeParsing(data) { return .failure(refusal) }
        let (xml, lifted) = lifted(data)
        let parser = XMLParser(data: xml)
        parser.shouldResolveExternalEntities = false
        parser.externalEntityResolvingPolicy = .never
        parser.shouldProcessNamespaces = false
        let reader = KeePassXMLReader(lifted: lifted, binaries: binaries, innerStream: innerStream)
        parser.delegate = reader
        let parsed = parser.parse()
        if let refusal = reader.refusal { return .failure(refusal) }
        if let (line, code) = reader.parseError {
            // libxml2's size limits (a text node over 10,000,000 bytes: an attachment in a KDBX 3.1
            // file) are its "internal error".
            return .failure(Refusal(code == internalErrorCode ? "has a value too long for the XML reader (over 10 MB, line \(line))"
                                                            : "is not well-formed XML (line \(line))"))
        }
        guard parsed, parser.parserError == nil else { return .failure(Refusal("is not well-formed XML")) }
        guard reader.sawRoot else { return .failure(Refusal("is not a KeePass XML export: it has no <KeePassFile> element")) }
        return .success(reader.document)
    }

    /// Why a file is not read: the words that follow its name ("is not well-formed XML (line 3)").
    struct Refusal: Error, Equatable {
        var reason: String
        init(_ reason: String) { self.reason = reason }

        /// What is checked on the bytes, before any XML parser sees them: UTF-8 text whose XML
        /// declaration, if any, says UTF-8, and no `<!` other than a comment or CDATA section.
        /// A DTD is what entities (the "billion laughs", external files) need; KeePass never
        /// writes one, and refusing it on the raw bytes does not depend on the parser's settings.
        /// A UTF-16 or UTF-32 file, or one declaring another encoding, could hide `<!DOCTYPE`
        /// from this scan, hence UTF-8 only.
        static func beforeParsing(_ data: Data) -> Refusal? {
            data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Refusal? in
                let bytes = raw.bindMemory(to: UInt8.self)
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return Refusal("is empty") }
                if memchr(base, 0, bytes.count) != nil { return Refusal("is not a UTF-8 XML file (it holds NUL bytes)") }
                if String(validating: bytes, as: UTF8.self) == nil { return Refusal("is not valid UTF-8") }
                switch declaredEncoding(bytes) {
                case .unterminated:
                    return Refusal("has an XML declaration that does not end (no \"?>\" in its first \(declarationLimit) bytes)")
                case .encoding(let encoding) where !["utf-8", "utf8"].contains(encoding.lowercased()):
                    return Refusal("declares the encoding \"\(encoding.prefix(40))\"; only UTF-8 is read")
                case .encoding, .none:
                    break
                }
                let comment = Array("<!--".utf8), cdata = Array("<![CDATA[".utf8)
                // The XML declaration, if any, opens the file (after a byte order mark), with data.
                let start = bytes.hasPrefix([0xEF, 0xBB, 0xBF], at: 0) ? 3 : 0
                let declaration = ["<?xml ", "<?xml\t", "<?xml\n", "<?xml\r"].contains { bytes.hasPrefix(Array($0.utf8), at: start) } ? start : -1
                var index = 0
                while index < bytes.count, let found = memchr(base + index, Int32(UInt8(ascii: "<")), bytes.count - index) {
                    index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "!")
                        && !bytes.hasPrefix(comment, at: index) && !bytes.hasPrefix(cdata, at: index) {
                        return Refusal("has a document type or entity declaration (<!…>), which a KeePass export never has")
                    }
                    // Foundation's parser crashes on a processing instruction without data
                    // (`<?x?>`, found by FuzzForeignImport): none but the declaration reaches it.
                    if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "?") && index != declaration {
                        return Refusal("has a processing instruction (<?…?>) after its start, which a KeePass export never has")
                    }
                    index += 1
                }
                return nil
            }
        }

        /// The most bytes an XML declaration may take, to its closing `?>`. Its spaces are free in
        /// XML (`<?xml version="1.0"` + 600 spaces + `encoding="UTF-7"?>` is one), so the whole
        /// declaration is read, not a fixed head of the file; KeePass writes some 40 bytes, and a
        /// declaration longer than this is refused rather than read in part.
        static let declarationLimit = 4_096

        /// What the XML declaration at the start of a file says of its encoding.
        enum DeclaredEncoding: Equatable {
            /// No declaration: XML is then UTF-8 (or UTF-16 with a byte order mark, refused as NUL bytes).
            case none
            /// The declaration's `encoding`: empty when it is not a quoted value.
            case encoding(String)
            /// A declaration with no `?>` within `declarationLimit` bytes.
            case unterminated
        }

        /// The `encoding` of the XML declaration at the start (after a UTF-8 byte order mark), read
        /// to the declaration's `?>` however far it is within `declarationLimit`.
        static func declaredEncoding(_ bytes: UnsafeBufferPointer<UInt8>) -> DeclaredEncoding {
            var start = 0
            if bytes.hasPrefix([0xEF, 0xBB, 0xBF], at: 0) { start = 3 }
            guard bytes.hasPrefix(Array("<?xml".utf8), at: start) else { return .none }
            let limit = min(bytes.count, start + declarationLimit)
            let close = Array("?>".utf8)
            guard let end = (start..<limit).first(where: { bytes.hasPrefix(close, at: $0) && $0 + close.count <= limit }) else {
                return .unterminated
            }
            let declaration = String(decoding: bytes[start..<end], as: UTF8.self)
            guard let range = declaration.range(of: "encoding") else { return .none }
            let rest = declaration[range.upperBound...].drop { $0 == "=" || $0.isWhitespace }
            guard let quote = rest.first, quote == "\"" || quote == "'" else { return .encoding("") }
            return .encoding(String(rest.dropFirst().prefix { $0 != quote }))
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes from `index` on start with `prefix`.
    func hasPrefix(_ prefix: [UInt8], at index: Int) -> Bool {
        guard index >= 0, index + prefix.count <= count else { return false }
        for offset in 0..<prefix.count where self[index + offset] != prefix[offset] { return false }
        return true
    }
}
