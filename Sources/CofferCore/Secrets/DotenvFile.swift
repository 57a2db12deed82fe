import Foundation

/// The strict dotenv dialect `coffer run --env-file` reads: one `KEY=VALUE` a line.
///
/// - blank lines and lines starting with `#` are skipped; `export ` before a key is allowed;
/// - KEY is `[A-Za-z_][A-Za-z0-9_]*`, each at most once;
/// - VALUE is bare (no spaces, quotes, backslashes or `$`), `'single-quoted'` (taken as written) or
///   `"double-quoted"` (escapes `\\`, `\"`, `\$`, `\n`, `\t` only); after it only spaces and a `# comment`.
///
/// Nothing is expanded, and an unquoted or double-quoted `$` is refused rather than kept as text:
/// `PATH=$PATH:…` would otherwise quietly set a broken PATH, and a file from elsewhere never reads
/// other variables.
///
/// Anything else is refused with its line number rather than guessed at.
public enum DotenvFile {
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String

        public var description: String { "line \(line): \(reason)" }
    }

    public struct Assignment: Sendable, Equatable {
        public var key: String
        public var value: String
        public var line: Int
    }

    public static func parse(_ data: Data) throws(Problem) -> [Assignment] {
        var assignments: [Assignment] = []
        var seen: Set<String> = []
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            var bytes = raw
            if bytes.last == 0x0D { bytes = bytes.dropLast() }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw Problem(line: number, reason: "the text is not UTF-8")
            }
            guard let assignment = try parse(line: text, number: number) else { continue }
            guard seen.insert(assignment.key).inserted else {
                throw Problem(line: number, reason: "\(assignment.key) was already set above")
            }
            assignments.append(assignment)
        }
        return assignments
    }

    /// One line's assignment; nil for a blank or comment line.
    static func parse(line text: String, number: Int) throws(Problem) -> Assignment? {
        func fail(_ reason: String) -> Problem { Problem(line: number, reason: reason) }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
            throw fail("it holds a control character")
        }
        var rest = Substring(text).drop { $0 == " " || $0 == "\t" }
        if rest.isEmpty || rest.first == "#" { return nil }
        if rest.hasPrefix("export ") { rest = rest.dropFirst("export ".count).drop { $0 == " " } }
        let key = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        guard let first = key.first, !first.isNumber else { throw fail("a line must start with a variable name (KEY=VALUE)") }
        rest = rest.dropFirst(key.count)
        guard rest.first == "=" else { throw fail("\(key) must be followed by “=” with no space before it") }
        rest = rest.dropFirst()
        let dollar = "nothing is expanded: write a $ in single quotes, or as \\$ in double quotes"
        var value = ""
        switch rest.first {
        case "'":
            rest = rest.dropFirst()
            guard let end = rest.firstIndex(of: "'") else { throw fail("the value's single quote is not closed on this line") }
            value = String(rest[..<end])
            rest = rest[rest.index(after: end)...]
        case "\"":
            rest = rest.dropFirst()
            var closed = false
            while let character = rest.popFirst() {
                if character == "\"" { closed = true; break }
                if character == "$" { throw fail(dollar) }
                guard character == "\\" else { value.append(character); continue }
                switch rest.popFirst() {
                case "\\": value.append("\\")
                case "\"": value.append("\"")
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "$": value.append("$")
                default: throw fail("only \\\\, \\\", \\$, \\n and \\t are escapes in a double-quoted value")
                }
            }
            guard closed else { throw fail("the value's double quote is not closed on this line") }
        default:
            let bare = rest.prefix { !" \t'\"\\".contains($0) }
            if bare.contains("$") { throw fail(dollar) }
            value = String(bare)
            rest = rest.dropFirst(bare.count)
        }
        rest = rest.drop { $0 == " " || $0 == "\t" }
        if !rest.isEmpty && rest.first != "#" {
            throw fail("unexpected text after \(key)'s value (quote a value that holds spaces, quotes or backslashes)")
        }
        return Assignment(key: String(key), value: value, line: number)
    }
}
