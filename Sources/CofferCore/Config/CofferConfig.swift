import Foundation

/// What `config.toml` says, checked: the settings Coffer applies, each still below the flags and
/// environment variables that name the same thing (`ConfigPrecedence`).
///
/// ```toml
/// vault = "~/vaults/personal.db"
/// auto-lock = 600          # seconds, 10 to 86400
/// clipboard-seconds = 20   # 1 to 600
/// new-item-kind = "note"
///
/// [colors]
/// warning = "magenta"
///
/// [keys]
/// copy-password = "y"
/// ```
///
/// Unknown keys and tables are not errors: they are `warnings` (a file written for a newer
/// version must not lock anyone out of their vault), printed once on stderr. Values out of their
/// bounds are errors: a configuration must not make Coffer less safe without being told so.
public struct CofferConfig: Sendable, Equatable {
    /// Where `vault` points, `~/` expanded; always absolute.
    public var vault: String?
    public var autoLockSeconds: Int?
    public var clipboardSeconds: Int?
    /// The kind `n` opens a form of (`ItemKind.name`).
    public var newItemKind: String?
    /// `[colors]`, checked by `ScreenColors` in the screen's module (it knows the roles).
    public var colors: [ConfigDocument.Entry] = []
    /// `[keys]`, checked by the screen's key map (it knows the actions and keys).
    public var keys: [ConfigDocument.Entry] = []
    /// One sentence each: keys and tables this version does not know, ignored.
    public var warnings: [String] = []

    /// Bounds of the file's `auto-lock`: not 0 (never) and not above a day. `--auto-lock 0` still
    /// turns locking off for one run, on purpose and in sight.
    public static let autoLockBounds = 10...86_400
    /// Bounds of `clipboard-seconds`: not 0 (never cleared); at most ten minutes.
    public static let clipboardBounds = 1...600

    public init() {}

    /// The settings of `document`; `home` expands a leading `~/` in `vault`.
    public init(_ document: ConfigDocument, home: String) throws(ConfigProblem) {
        var unknown: [String] = []
        for entry in document.entries where entry.table == nil {
            switch entry.key {
            case "vault":
                let path = try Self.string(entry)
                let expanded = path.hasPrefix("~/") ? (home as NSString).appendingPathComponent(String(path.dropFirst(2))) : path
                guard expanded.hasPrefix("/") else {
                    throw ConfigProblem(line: entry.line, reason: "gives vault a relative path: write it from / or ~/")
                }
                vault = expanded
            case "auto-lock":
                autoLockSeconds = try Self.integer(entry, in: Self.autoLockBounds,
                                                   why: "(0, never locking, is only for one run: --auto-lock 0)")
            case "clipboard-seconds":
                clipboardSeconds = try Self.integer(entry, in: Self.clipboardBounds,
                                                    why: "(a copied secret is always cleared)")
            case "new-item-kind":
                let name = try Self.string(entry)
                guard ItemKind.named(name) != nil else {
                    throw ConfigProblem(line: entry.line, reason: "names the kind “\(name)”, which is none of "
                        + ItemKind.known.map(\.name).joined(separator: ", "))
                }
                newItemKind = name
            default:
                unknown.append("“\(entry.key)” (line \(entry.line))")
            }
        }
        for header in document.tableHeaders where !["colors", "keys"].contains(header.name) {
            unknown.append("[\(header.name)] (line \(header.line))")
        }
        colors = document.entries.filter { $0.table == "colors" }
        keys = document.entries.filter { $0.table == "keys" }
        if !unknown.isEmpty {
            warnings.append("Coffer does not know " + unknown.joined(separator: ", ") + " and ignores "
                + (unknown.count == 1 ? "it" : "them") + ".")
        }
    }

    static func string(_ entry: ConfigDocument.Entry) throws(ConfigProblem) -> String {
        guard case .string(let text) = entry.value else {
            throw ConfigProblem(line: entry.line, reason: "gives \(entry.key) \(entry.value.typeName): it takes a string in quotes")
        }
        return text
    }

    static func integer(_ entry: ConfigDocument.Entry, in bounds: ClosedRange<Int>, why: String) throws(ConfigProblem) -> Int {
        guard case .integer(let number) = entry.value else {
            throw ConfigProblem(line: entry.line, reason: "gives \(entry.key) \(entry.value.typeName): it takes a whole number of seconds")
        }
        guard bounds.contains(number) else {
            throw ConfigProblem(line: entry.line, reason: "gives \(entry.key) \(number) seconds: it takes "
                + "\(bounds.lowerBound) to \(bounds.upperBound) \(why)")
        }
        return number
    }
}
