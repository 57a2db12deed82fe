/// A configuration file's text read as the small part of TOML Coffer takes: `[table]` headers,
/// `key = value` lines, comments (`#` to the end of a line), and values that are strings (`"…"`
/// with TOML's escapes, or `'…'` taken literally), whole numbers and `true`/`false`.
///
/// Anything else TOML has (arrays, inline tables, dotted or quoted keys, dates, floats, multi-line
/// strings, `[[arrays of tables]]`) is refused with the line it is on: a file this reader half
/// understood would be applied half, and a configuration read wrong is worse than one refused.
/// The reader is a pure function of the text, so it is fuzzed (`FuzzConfig`).
public struct ConfigDocument: Sendable, Equatable {
    /// One `key = value` line.
    public struct Entry: Sendable, Equatable {
        /// The `[table]` it is under; nil above the first header.
        public var table: String?
        public var key: String
        public var value: ConfigValue
        /// Counted from 1, as editors count.
        public var line: Int

        public init(table: String?, key: String, value: ConfigValue, line: Int) {
            self.table = table
            self.key = key
            self.value = value
            self.line = line
        }
    }

    /// A file larger than this is refused before it is read: a configuration is a few lines, and
    /// a bound keeps a stray large file (a log linked there) from being parsed at every start.
    public static let sizeLimit = 64 * 1024

    public var entries: [Entry]
    /// The `[table]` headers in file order, with their lines (a table may have no entries).
    public var tables: [(name: String, line: Int)] { tableHeaders.map { ($0.name, $0.line) } }

    struct Header: Sendable, Equatable {
        var name: String
        var line: Int
    }

    var tableHeaders: [Header]

    /// Reads `bytes` (UTF-8); throws a `ConfigProblem` naming the first line it cannot read.
    public static func parse(_ bytes: [UInt8]) throws(ConfigProblem) -> ConfigDocument {
        guard bytes.count <= sizeLimit else {
            throw ConfigProblem(line: nil, reason: "is larger than \(sizeLimit / 1024) KiB")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigProblem(line: nil, reason: "is not UTF-8 text")
        }
        var document = ConfigDocument(entries: [], tableHeaders: [])
        var table: String?
        var seen = Set<String>()
        var number = 0
        // By scalar: "\r\n" is one Character, which a split on "\n" would not cut.
        for rawLine in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = ConfigLineScanner(rawLine.last == "\r" ? Array(rawLine.dropLast()) : Array(rawLine), number: number)
            line.skipBlanks()
            if line.isAtEnd || line.peek == "#" { continue }
            if line.peek == "[" {
                let name = try line.readHeader()
                guard !document.tableHeaders.contains(where: { $0.name == name }) else {
                    throw ConfigProblem(line: number, reason: "repeats the table [\(name)]")
                }
                document.tableHeaders.append(Header(name: name, line: number))
                table = name
                continue
            }
            let key = try line.readKey()
            line.skipBlanks()
            guard line.take("=") else { throw ConfigProblem(line: number, reason: "has no “=” after “\(key)”") }
            line.skipBlanks()
            let value = try line.readValue()
            try line.expectEnd()
            let qualified = (table.map { $0 + "." } ?? "") + key
            guard seen.insert(qualified).inserted else {
                throw ConfigProblem(line: number, reason: "sets “\(key)” a second time" + (table.map { " in [\($0)]" } ?? ""))
            }
            document.entries.append(Entry(table: table, key: key, value: value, line: number))
        }
        return document
    }

    public static func == (lhs: ConfigDocument, rhs: ConfigDocument) -> Bool {
        lhs.entries == rhs.entries && lhs.tableHeaders == rhs.tableHeaders
    }
}

/// A value on the right of `=`.
public enum ConfigValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case boolean(Bool)

    /// How a sentence names the type of value it wanted or got.
    public var typeName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "a whole number"
        case .boolean: return "true or false"
        }
    }
}

/// Why a configuration file is refused: where (a line, or the file as a whole) and what.
public struct ConfigProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Counted from 1; nil for the file as a whole (its size, its encoding).
    public var line: Int?
    /// The end of a sentence whose subject is the line or the file ("has no “=” after “vault”").
    public var reason: String

    public init(line: Int?, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// One sentence naming the file and the line.
    public func sentence(file: String) -> String {
        let place = line.map { "Line \($0) of \(file)" } ?? "The configuration file \(file)"
        return "\(place) \(reason)."
    }

    public var description: String { line.map { "line \($0) \(reason)" } ?? reason }
}
