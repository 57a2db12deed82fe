/// Reads one line of a configuration file for `ConfigDocument`, left to right, by Unicode scalar.
struct ConfigLineScanner {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    let number: Int

    init(_ scalars: [Unicode.Scalar], number: Int) {
        self.scalars = scalars
        self.number = number
    }

    var isAtEnd: Bool { index >= scalars.count }
    var peek: Unicode.Scalar? { isAtEnd ? nil : scalars[index] }

    mutating func skipBlanks() {
        while let scalar = peek, scalar == " " || scalar == "\t" { index += 1 }
    }

    mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard peek == scalar else { return false }
        index += 1
        return true
    }

    private func problem(_ reason: String) -> ConfigProblem { ConfigProblem(line: number, reason: reason) }

    private static func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_": return true
        default: return false
        }
    }

    /// A bare key (letters, digits, `-`, `_`); TOML's quoted and dotted keys are refused.
    mutating func readKey() throws(ConfigProblem) -> String {
        let start = index
        while let scalar = peek, Self.isBareKeyScalar(scalar) { index += 1 }
        guard index > start else {
            if peek == "\"" || peek == "'" { throw problem("has a quoted key, which Coffer does not take: write the key bare") }
            throw problem("is neither a [table], a key = value, nor a # comment")
        }
        if peek == "." { throw problem("has a dotted key, which Coffer does not take: use a [table]") }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    /// `[name]` and what may follow it (blanks, a comment).
    mutating func readHeader() throws(ConfigProblem) -> String {
        _ = take("[")
        if peek == "[" { throw problem("starts an array of tables ([[…]]), which Coffer does not take") }
        skipBlanks()
        let start = index
        while let scalar = peek, Self.isBareKeyScalar(scalar) { index += 1 }
        let name = String(String.UnicodeScalarView(scalars[start..<index]))
        skipBlanks()
        guard !name.isEmpty, take("]") else { throw problem("has a table header that is not [name]") }
        try expectEnd()
        return name
    }

    mutating func readValue() throws(ConfigProblem) -> ConfigValue {
        guard let first = peek else { throw problem("has no value after “=”") }
        switch first {
        case "\"":
            if scalars[index...].starts(with: ["\"", "\"", "\""]) { throw problem("has a multi-line string, which Coffer does not take") }
            return .string(try readBasicString())
        case "'":
            if scalars[index...].starts(with: ["'", "'", "'"]) { throw problem("has a multi-line string, which Coffer does not take") }
            return .string(try readLiteralString())
        case "t", "f":
            let word = readWord()
            if word == "true" { return .boolean(true) }
            if word == "false" { return .boolean(false) }
            throw problem("has a value that is not a string in quotes, a whole number, true or false")
        case "+", "-", "0"..."9":
            return .integer(try readInteger())
        default:
            throw problem("has a value that is not a string in quotes, a whole number, true or false")
        }
    }

    private mutating func readWord() -> String {
        let start = index
        while let scalar = peek, Self.isBareKeyScalar(scalar) || scalar == "." || scalar == ":" { index += 1 }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    /// Decimal digits with an optional sign and single `_` between digits, as TOML writes them;
    /// no leading zeros, no hexadecimal, nothing beyond `Int`.
    private mutating func readInteger() throws(ConfigProblem) -> Int {
        let word = readWord()
        var digits = Substring(word)
        var isNegative = false
        if let sign = digits.first, sign == "+" || sign == "-" {
            isNegative = sign == "-"
            digits = digits.dropFirst()
        }
        // `readWord` stops at a sign, so a sign is read here apart from the word.
        if word.isEmpty, let sign = peek, sign == "+" || sign == "-" {
            index += 1
            isNegative = sign == "-"
            digits = Substring(readWord())
        }
        let invalid = problem("has a number Coffer cannot read (whole numbers only, such as 300)")
        guard let first = digits.first, first.isASCII, first.isNumber, digits.last?.isNumber == true,
              !digits.contains("__"), digits.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "_" }),
              !(first == "0" && digits.count > 1) else { throw invalid }
        guard let magnitude = Int(digits.filter { $0 != "_" }) else {
            throw problem("has a number too large")
        }
        return isNegative ? -magnitude : magnitude
    }

    private mutating func readLiteralString() throws(ConfigProblem) -> String {
        _ = take("'")
        var result = String.UnicodeScalarView()
        while let scalar = peek {
            index += 1
            if scalar == "'" { return String(result) }
            guard scalar == "\t" || !scalar.properties.generalCategory.isControl else {
                throw problem("has a control character in a string")
            }
            result.append(scalar)
        }
        throw problem("has a string without its closing quote")
    }

    private mutating func readBasicString() throws(ConfigProblem) -> String {
        _ = take("\"")
        var result = String.UnicodeScalarView()
        while let scalar = peek {
            index += 1
            switch scalar {
            case "\"":
                return String(result)
            case "\\":
                result.append(try readEscape())
            default:
                guard scalar == "\t" || !scalar.properties.generalCategory.isControl else {
                    throw problem("has a control character in a string")
                }
                result.append(scalar)
            }
        }
        throw problem("has a string without its closing quote")
    }

    private mutating func readEscape() throws(ConfigProblem) -> Unicode.Scalar {
        guard let letter = peek else { throw problem("has a string without its closing quote") }
        index += 1
        switch letter {
        case "\"": return "\""
        case "\\": return "\\"
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "e": return "\u{1B}"
        case "u", "U":
            let count = letter == "u" ? 4 : 8
            guard index + count <= scalars.count else { throw problem("has an escape \\\(letter) without its hex digits") }
            let hex = String(String.UnicodeScalarView(scalars[index..<index + count]))
            index += count
            guard hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                throw problem("has an escape \\\(letter)\(hex) that is not a Unicode character")
            }
            return scalar
        default:
            throw problem("has an escape \\\(letter) TOML does not know")
        }
    }

    /// Blanks and a comment may end a line; anything else is refused.
    mutating func expectEnd() throws(ConfigProblem) {
        skipBlanks()
        if isAtEnd { return }
        if peek == "#" {
            let comment = scalars[index...]
            if comment.contains(where: { $0 != "\t" && $0.properties.generalCategory.isControl }) {
                throw problem("has a control character in a comment")
            }
            index = scalars.count
            return
        }
        throw problem("has something after its value: one value a line, then only a # comment")
    }
}

extension Unicode.GeneralCategory {
    var isControl: Bool { self == .control }
}
