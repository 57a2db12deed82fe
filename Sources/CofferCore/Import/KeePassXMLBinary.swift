import Foundation

/// Attachment data in a KeePass XML file (architecture §13).
///
/// keepassxc-cli writes each attachment gzipped and base64 in `Meta/Binaries`, one text node per
/// file. libxml2, under Foundation's parser, refuses a text node over 10,000,000 bytes (about a
/// 7 MB attachment) and Foundation cannot lift that limit, so `lifted` takes the text of each
/// `<Binary …>` element out of the file before it is parsed, leaves a `coffer-lifted` attribute
/// naming it (and the text's line breaks) in its place, and the reader takes it back from there.
/// Only text made of base64 characters and whitespace alone is lifted: XML reads such text exactly
/// as written, so the parse means what it would have meant, and anything else is left for the
/// parser to judge. (The scan does not know comments or CDATA: KeePass escapes `<` in values, so
/// only a hand-made file can have `<Binary …>` there, and then only that text changes.)
extension KeePassXMLDocument {
    /// An attachment's data: in `Meta/Binaries` (gzip when `Compressed="True"`, as keepassxc-cli
    /// writes it), or inline in an entry (KeePass 2's own export).
    struct Binary {
        /// The bytes as the file holds them (gzip when `isCompressed`); nil when not imported.
        var stored: Data?
        var isCompressed: Bool
        /// The file's size once inflated; for data not imported, what is known of it.
        var size: Int
        /// Why the data is not imported, in the words after "Attachment not imported: NAME ".
        var problem: String?

        /// A file as KDBX 4's inner header holds it: raw bytes, checked against `Attachment.sizeLimit`.
        init(raw data: Data) {
            isCompressed = false
            size = data.count
            if size > Attachment.sizeLimit {
                problem = "(\(size) bytes; an attachment holds at most 16 MiB)"
            } else {
                stored = data
            }
        }

        /// The data of `text`, checked: base64, at most `Attachment.sizeLimit` bytes once inflated,
        /// and gzip that inflates whole when it says it is compressed. Inflating here only
        /// measures: the bytes are inflated again, one file at a time, when they are attached.
        init(_ text: Base64Text, isCompressed: Bool) {
            self.isCompressed = isCompressed
            size = text.decodedSize
            guard text.isKept else {
                problem = "(\(size) bytes\(isCompressed ? " compressed" : ""); an attachment holds at most 16 MiB)"
                return
            }
            // An empty file has no text, compressed or not (KeePassXC writes no gzip for it).
            guard text.characters > 0 else {
                stored = Data()
                self.isCompressed = false
                return
            }
            guard let data = Data(base64Encoded: text.text) else {
                problem = "(its data is not base64)"
                return
            }
            size = data.count
            if isCompressed {
                switch Gzip.inflatedSize(data, limit: Attachment.sizeLimit) {
                case .success(let inflated): size = inflated
                case .failure(.tooLarge):
                    problem = "(over 16 MiB once uncompressed; an attachment holds at most 16 MiB)"
                    return
                case .failure(.notGzip):
                    problem = "(its data is marked compressed but is not gzip)"
                    return
                }
            } else if size > Attachment.sizeLimit {
                problem = "(\(size) bytes; an attachment holds at most 16 MiB)"
                return
            }
            stored = data
        }
    }

    /// Attachment data as it is read: its base64 characters, whitespace dropped, kept while there
    /// are no more than `keptLimit` (beyond that they are only counted).
    struct Base64Text {
        private(set) var text = ""
        private(set) var characters = 0
        private(set) var padding = 0

        /// Base64 of a 16 MiB file gzipped with no gain (gzip adds at most about 0.03 % and 18
        /// bytes), with room to spare: more characters cannot hold an attachment Coffer keeps.
        static let keptLimit = (Attachment.sizeLimit + Attachment.sizeLimit / 64 + 4_096) / 3 * 4

        var isKept: Bool { characters <= Self.keptLimit }

        /// The bytes the characters decode to.
        var decodedSize: Int { max(0, characters / 4 * 3 - min(padding, 2)) }

        /// The base64 text of `bytes`, which hold only base64 characters and whitespace.
        init(ascii bytes: UnsafeBufferPointer<UInt8>) {
            var kept: [UInt8] = []
            for byte in bytes where !Self.isWhitespace(byte) {
                characters += 1
                if byte == UInt8(ascii: "=") { padding += 1 }
                if isKept { kept.append(byte) }
            }
            text = isKept ? String(decoding: kept, as: UTF8.self) : ""
        }

        init() {}

        static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        /// Whether `byte` may be in base64 text: the alphabet, `=` and XML's whitespace.
        static func isBase64(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
                return true
            default: return isWhitespace(byte)
            }
        }

        mutating func append(_ string: String) {
            for scalar in string.unicodeScalars where !scalar.properties.isWhitespace {
                characters += 1
                if scalar == "=" { padding += 1 }
                if isKept { text.unicodeScalars.append(scalar) }
            }
            if !isKept { text = "" }
        }
    }

    /// `data` with the text of each `<Binary …>…</Binary>` element taken out, and those texts,
    /// in the order of their `coffer-lifted` attributes.
    static func lifted(_ data: Data) -> (xml: Data, texts: [Base64Text]) {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> (Data, [Base64Text]) in
            let bytes = raw.bindMemory(to: UInt8.self)
            let open = Array("<Binary ".utf8), close = Array("</Binary>".utf8)
            var xml = Data()
            var texts: [Base64Text] = []
            var copied = 0
            var index = 0
            while let start = bytes.firstIndex(of: open, from: index) {
                index = start + open.count
                guard let tagEnd = bytes[index...].firstIndex(of: UInt8(ascii: ">")), bytes[tagEnd - 1] != UInt8(ascii: "/") else { continue }
                var end = tagEnd + 1
                while end < bytes.count, Base64Text.isBase64(bytes[end]) { end += 1 }
                guard bytes.hasPrefix(close, at: end) else { continue }
                xml.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<tagEnd]))
                xml.append(contentsOf: Array(" coffer-lifted=\"\(texts.count)\">".utf8))
                let text = UnsafeBufferPointer(rebasing: bytes[(tagEnd + 1)..<end])
                // Its line breaks stay, so the parser's line numbers still count the file's lines.
                xml.append(contentsOf: text.filter { $0 == 0x0A })
                texts.append(Base64Text(ascii: text))
                copied = end
                index = end + close.count
            }
            guard !texts.isEmpty else { return (data, []) }
            xml.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
            return (xml, texts)
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The first index, from `start` on, where `pattern` (not empty) begins.
    func firstIndex(of pattern: [UInt8], from start: Int) -> Int? {
        guard let base = baseAddress, let first = pattern.first else { return nil }
        var index = start
        while index < count, let found = memchr(base + index, Int32(first), count - index) {
            index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if hasPrefix(pattern, at: index) { return index }
            index += 1
        }
        return nil
    }
}
