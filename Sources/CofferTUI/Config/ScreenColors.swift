import CofferCore

/// The terminal colour each of the screen's roles is drawn in, as `config.toml`'s `[colors]`
/// sets them: `error = "magenta"`, `enabled = false` (as `NO_COLOR` does; the variable still wins).
///
/// A role is one of `Style.Color`'s slots, named by what it marks: colour is only a hint on this
/// screen (every badge and error also has a glyph or word), so no setting can hide anything.
public struct ScreenColors: Sendable, Equatable {
    /// The roles, by the slot they recolour.
    static let roles: [(name: String, slot: Style.Color)] = [
        ("error", .red), ("success", .green), ("warning", .yellow), ("info", .blue), ("review", .magenta), ("accent", .cyan),
    ]
    /// Terminal colours by name, as curses numbers them; `default` is the terminal's own.
    static let names: [String: Int16] = [
        "default": -1, "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
    ]

    /// The curses colour of each slot.
    var palette: [Style.Color: Int16] = [.red: 1, .green: 2, .yellow: 3, .blue: 4, .magenta: 5, .cyan: 6]
    /// False draws no colour at all.
    public var isEnabled = true

    public init() {}

    /// Reads `[colors]`; throws the first line it refuses. Unknown roles are warnings.
    public init(_ entries: [ConfigDocument.Entry]) throws(ConfigProblem) {
        var unknown: [String] = []
        for entry in entries {
            if entry.key == "enabled" {
                guard case .boolean(let isOn) = entry.value else {
                    throw ConfigProblem(line: entry.line, reason: "gives enabled \(entry.value.typeName): it takes true or false")
                }
                isEnabled = isOn
                continue
            }
            guard let role = Self.roles.first(where: { $0.name == entry.key }) else {
                unknown.append("“\(entry.key)” (line \(entry.line))")
                continue
            }
            let choices = "it takes one of " + Self.names.keys.sorted().joined(separator: ", ")
            guard case .string(let name) = entry.value else {
                throw ConfigProblem(line: entry.line, reason: "gives \(entry.key) \(entry.value.typeName): \(choices)")
            }
            guard let color = Self.names[name.lowercased()] else {
                throw ConfigProblem(line: entry.line, reason: "gives \(entry.key) the colour “\(TerminalText.line(name))”, "
                    + "which Coffer does not know: \(choices)")
            }
            palette[role.slot] = color
        }
        warnings = unknown.isEmpty ? [] : ["The [colors] of the configuration name " + unknown.joined(separator: ", ")
            + ", which " + (unknown.count == 1 ? "is no role" : "are no roles") + " (" + Self.roles.map(\.name).joined(separator: ", ")
            + "): ignored."]
    }

    /// Roles this version does not know, one sentence.
    public var warnings: [String] = []
}
