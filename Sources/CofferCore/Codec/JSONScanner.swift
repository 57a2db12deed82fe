/// A strict RFC 8259 reader over UTF-8 bytes, one token at a time, for the item codec.
///
/// It validates as it goes (UTF-8, escapes, surrogate pairs, number grammar, nesting depth) and
/// throws `ItemJSONError` on anything malformed; it never traps on input. Strings without escapes
/// come back as a range of the input, so the common case copies bytes once, into the `String`.
///
/// The buffer must outlive the scanner: use it only inside `withUnsafeBytes`.
package struct JSONScanner {
    /// A string token: a range of the input when it has no escapes, else its decoded bytes.
    enum StringToken {
        case raw(Range<Int>)
        case decoded([UInt8])

        /// Zeroes decoded bytes (they may be a password), dropping this token's hold first so the
        /// wipe reaches the buffer itself rather than a copy.
        mutating func wipe() {
            guard case .decoded(var bytes) = self else { return }
            self = .raw(0..<0)
            CofferCore.wipe(&bytes)
        }
    }

    /// Deeper documents are refused rather than risking the stack (Foundation's limit too).
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func malformed(_ reason: String) -> ItemJSONError { .malformed(reason, offset: position) }

    func wrongType(_ expected: String) -> ItemJSONError { .wrongType(expected, offset: position) }

    // MARK: Structure

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next byte that is not whitespace, not consumed.
    mutating func peek() throws -> UInt8 {
        skipWhitespace()
        guard position < bytes.count else { throw malformed("unexpected end") }
        return bytes[position]
    }

    /// Nothing but whitespace may follow the document.
    mutating func expectEnd() throws {
        skipWhitespace()
        guard position == bytes.count else { throw malformed("data after the document") }
    }

    private mutating func consume(_ byte: UInt8, _ what: String) throws {
        guard try peek() == byte else { throw malformed("expected \(what)") }
        position += 1
    }

    private mutating func descend() throws {
        depth += 1
        guard depth <= JSONScanner.maximumDepth else { throw malformed("nested too deeply") }
    }

    /// Consumes `{`; a type error if the value is something else.
    mutating func enterObject(_ what: String) throws {
        guard try peek() == UInt8(ascii: "{") else { throw wrongType("\(what) as an object") }
        position += 1
        try descend()
    }

    /// The next member's key (its colon consumed), or nil after the closing `}`.
    /// `count` is how many members the caller has read so far in this object.
    mutating func nextKey(after count: Int) throws -> StringToken? {
        let byte = try peek()
        if byte == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return nil
        }
        if count > 0 { try consume(UInt8(ascii: ","), "',' or '}'") }
        guard try peek() == UInt8(ascii: "\"") else { throw malformed("expected a member name") }
        let key = try scanString(collecting: true)
        try consume(UInt8(ascii: ":"), "':'")
        return key
    }

    /// Consumes `[`; a type error if the value is something else.
    mutating func enterArray(_ what: String) throws {
        guard try peek() == UInt8(ascii: "[") else { throw wrongType("\(what) as an array") }
        position += 1
        try descend()
    }

    /// Whether another element follows (its comma consumed); false after the closing `]`.
    mutating func hasNextElement(after count: Int) throws -> Bool {
        if try peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return false
        }
        if count > 0 { try consume(UInt8(ascii: ","), "',' or ']'") }
        return true
    }

    // MARK: Scalars

    /// Consumes `null` if it comes next.
    mutating func skipNull() throws -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    mutating func readBool() throws -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw wrongType("a boolean")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw malformed("unexpected end") }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] {
            throw malformed("invalid literal")
        }
        position += count
    }

    mutating func readString(_ what: String) throws -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw wrongType("\(what) as a string") }
        var token = try scanString(collecting: true)
        defer { token.wipe() }
        return string(of: token)
    }

    /// Calls `body` with a string token's bytes (valid UTF-8).
    func withBytes<Result>(of token: StringToken, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        switch token {
        case .raw(let range): return try body(UnsafeBufferPointer(rebasing: bytes[range]))
        case .decoded(let decoded): return try decoded.withUnsafeBufferPointer(body)
        }
    }

    func string(of token: StringToken) -> String {
        withBytes(of: token) { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads a JSON number as `Double`. Like Foundation, refuses numbers too big (1e400) or too small
    /// to be anything but zero (1e-400); subnormal results are kept.
    mutating func readNumber() throws -> Double {
        _ = try peek()
        let start = position
        var isZero = true
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw malformed("invalid number") }
        if bytes[position] == UInt8(ascii: "0") { position += 1 } else { isZero = false; skipDigits() }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw malformed("invalid number") }
            let fractionStart = position
            skipDigits()
            if bytes[fractionStart..<position].contains(where: { $0 != UInt8(ascii: "0") }) { isZero = false }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw malformed("invalid number") }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite, value != 0 || isZero else { throw malformed("number out of range") }
        return value
    }

    /// 2⁵³: the largest whole number every JSON reader holds exactly (as a double).
    package static let largestWholeNumber: Int64 = 9_007_199_254_740_992

    /// A whole number that fits `Int64` exactly (timestamps are milliseconds, far below 2^53).
    ///
    /// Written as one ("1795…", never "1.0", "1e3" or "…436.9999999999", which a double rounds to
    /// …437 while Foundation's parser truncates it to …436): a server's batch answer, read with
    /// `JSONSerialization` (`KintoJSON.int64`), and the same record read here then agree.
    mutating func readWholeNumber(_ what: String) throws -> Int64 {
        _ = try peek()
        let start = position
        _ = try readNumber()
        let digits = UnsafeBufferPointer(rebasing: bytes[start..<position])
        guard !digits.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }),
              let number = Int64(String(decoding: digits, as: UTF8.self)),
              number.magnitude <= Self.largestWholeNumber.magnitude else {
            throw ItemJSONError.wrongType("\(what) as a whole number", offset: start)
        }
        return number
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    // MARK: Any value

    /// Reads any value. A name repeated in an object is refused (Foundation kept the first).
    mutating func readValue() throws -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "{"):
            try enterObject("a value")
            var members: [String: JSONValue] = [:]
            while let key = try nextKey(after: members.count) {
                let name = string(of: key)
                if members.updateValue(try readValue(), forKey: name) != nil {
                    throw ItemJSONError.duplicateMember(name)
                }
            }
            return .object(members)
        case UInt8(ascii: "["):
            try enterArray("a value")
            var elements: [JSONValue] = []
            while try hasNextElement(after: elements.count) { elements.append(try readValue()) }
            return .array(elements)
        case UInt8(ascii: "\""): return .string(try readString("a value"))
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try readBool())
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default: return .number(try readNumber())
        }
    }

    /// Validates and skips any value (an unknown member), building nothing.
    mutating func skipValue() throws {
        switch try peek() {
        case UInt8(ascii: "{"):
            try enterObject("a value")
            var count = 0
            while try nextKey(after: count) != nil {
                try skipValue()
                count += 1
            }
        case UInt8(ascii: "["):
            try enterArray("a value")
            var count = 0
            while try hasNextElement(after: count) {
                try skipValue()
                count += 1
            }
        case UInt8(ascii: "\""): _ = try scanString(collecting: false)
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try readNumber()
        }
    }

    // MARK: Strings

    /// Scans a string from its opening quote. Without `collecting`, escapes are checked but not kept.
    mutating func scanString(collecting: Bool) throws -> StringToken {
        position += 1
        let start = position
        while position < bytes.count {
            skipPlainASCII()
            guard position < bytes.count else { break }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return .raw(start..<(position - 1))
            }
            if byte == UInt8(ascii: "\\") { break }
            try skipCharacter(byte)
        }
        var decoded = collecting ? Array(UnsafeBufferPointer(rebasing: bytes[start..<position])) : []
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return .decoded(decoded)
            }
            if byte == UInt8(ascii: "\\") {
                let scalar = try readEscape()
                if collecting { decoded.append(contentsOf: scalar.utf8) }
            } else {
                let characterStart = position
                try skipCharacter(byte)
                if collecting { decoded.append(contentsOf: bytes[characterStart..<position]) }
            }
        }
        wipe(&decoded)
        throw malformed("unterminated string")
    }

    /// Steps over printable ASCII other than `"` and `\`, eight bytes at a time: a record's
    /// strings are mostly base64 (a sealed envelope), which byte by byte was a fifth of a first
    /// download's time. Stops at the first byte needing a closer look, or at the end.
    private mutating func skipPlainASCII() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        guard let base = bytes.baseAddress else { return }
        while bytes.count - position >= 8 {
            let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
            // Exact tests for "some byte is": ≥ 0x80, < 0x20, a quote, a backslash.
            let nonASCII = word & highs
            let control = (word &- ones &* 0x20) & ~word & highs
            let quoted = word ^ (ones &* 0x22)
            let escaped = word ^ (ones &* 0x5C)
            let quote = (quoted &- ones) & ~quoted & highs
            let backslash = (escaped &- ones) & ~escaped & highs
            if nonASCII | control | quote | backslash != 0 { break }
            position += 8
        }
        while position < bytes.count {
            let byte = bytes[position]
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return }
            position += 1
        }
    }

    /// Steps over one unescaped character inside a string, checking it is allowed and valid UTF-8.
    private mutating func skipCharacter(_ byte: UInt8) throws {
        if byte < 0x20 { throw malformed("control character in a string") }
        if byte < 0x80 {
            position += 1
            return
        }
        // Well-formed UTF-8 (Unicode Table 3-7): no overlongs, surrogates or scalars past U+10FFFF.
        var length = 3
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch byte {
        case 0xC2...0xDF: length = 2
        case 0xE0: lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: break
        case 0xED: upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: throw malformed("invalid UTF-8")
        }
        guard bytes.count - position >= length else { throw malformed("invalid UTF-8") }
        let second = bytes[position + 1]
        guard second >= lower, second <= upper else { throw malformed("invalid UTF-8") }
        for offset in 2..<length where bytes[position + offset] & 0xC0 != 0x80 {
            throw malformed("invalid UTF-8")
        }
        position += length
    }

    /// Reads one escape from its backslash. A lone surrogate (`\ud800` without its pair) is refused:
    /// a Swift string cannot hold it.
    private mutating func readEscape() throws -> Unicode.Scalar {
        position += 1
        guard position < bytes.count else { throw malformed("unterminated string") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): break
        default:
            position -= 1
            throw malformed("invalid escape")
        }
        let unit = try readHex4()
        switch unit {
        case 0xD800...0xDBFF:
            guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
                  bytes[position + 1] == UInt8(ascii: "u") else { throw malformed("lone surrogate escape") }
            position += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw malformed("lone surrogate escape") }
            let value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            guard let scalar = Unicode.Scalar(value) else { throw malformed("invalid escape") }
            return scalar
        case 0xDC00...0xDFFF:
            throw malformed("lone surrogate escape")
        default:
            guard let scalar = Unicode.Scalar(unit) else { throw malformed("invalid escape") }
            return scalar
        }
    }

    private mutating func readHex4() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw malformed("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
