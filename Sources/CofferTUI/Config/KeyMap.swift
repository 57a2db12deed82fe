import CofferCore

/// The keys `config.toml`'s `[keys]` gives actions, and the key table with them applied.
///
/// A line `copy-password = "y"` (or `"y F6"`: several keys, apart by blanks) gives the action
/// those keys in place of its own, on every page it works on; its old keys are free. Where
/// printable keys type into a field (the filter, the form, the passphrase and path prompts) an
/// action keeps only the remapped keys that do not type (Enter, arrows, F-keys, ^letters), or its
/// own when none is given: a remap must never take a letter from what is typed. The kind question's
/// letters are the kinds' own and stay.
///
/// Refused, each in one sentence naming the line: a key the screen cannot receive (`KeyName`),
/// and a key that would then do two things on one page (both actions named).
public struct KeyMap: Sendable, Equatable {
    /// The keys each remapped action takes.
    let remapped: [Action: [Key]]
    /// The key table with the remaps applied (the standard table when there are none).
    let table: [KeyBinding]
    /// Lines naming actions this version does not know, ignored (one sentence).
    public let warnings: [String]

    public static let standard = KeyMap()

    private init() {
        remapped = [:]
        table = KeyBindings.table
        warnings = []
    }

    /// Reads `[keys]`; throws the first line it refuses.
    public init(_ entries: [ConfigDocument.Entry]) throws(ConfigProblem) {
        var remapped: [Action: [Key]] = [:]
        var lines: [Action: Int] = [:]
        var unknown: [String] = []
        for entry in entries {
            guard let action = Action(configName: entry.key), KeyBindings.remappable.contains(action) else {
                unknown.append("“\(entry.key)” (line \(entry.line))")
                continue
            }
            guard case .string(let text) = entry.value else {
                throw ConfigProblem(line: entry.line, reason: "gives \(entry.key) \(entry.value.typeName): it takes keys in quotes, such as \"y\"")
            }
            var keys: [Key] = []
            for name in text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) {
                switch KeyName.key(named: name) {
                case .success(let key): if !keys.contains(key) { keys.append(key) }
                case .failure(let problem): throw ConfigProblem(line: entry.line, reason: problem.reason)
                }
            }
            // A single space is the Space key, which splitting on blanks would lose.
            if keys.isEmpty, text == " " { keys = [.character(" ")] }
            guard !keys.isEmpty else { throw ConfigProblem(line: entry.line, reason: "gives \(entry.key) no key") }
            remapped[action] = keys
            lines[action] = entry.line
        }
        self.remapped = remapped
        table = KeyBindings.table(remapping: remapped)
        warnings = unknown.isEmpty ? [] : ["The [keys] of the configuration name " + unknown.joined(separator: ", ")
            + ", which " + (unknown.count == 1 ? "is no action" : "are no actions") + " of the screen: ignored."]
        if let clash = KeyBindings.firstClash(in: table, remapped: Set(remapped.keys)) {
            let line = lines[clash.remapped] ?? 0
            throw ConfigProblem(line: line, reason: "gives \(clash.key.displayName) to \(clash.remapped.configName), "
                + "but \(clash.key.displayName) also does \(clash.other.configName) on the \(clash.context.title) page: "
                + "a key does one thing (give \(clash.other.configName) another key too)")
        }
    }

    public static func == (lhs: KeyMap, rhs: KeyMap) -> Bool { lhs.remapped == rhs.remapped }
}

extension Action {
    /// The action's name in `[keys]`: `copyPassword` is `copy-password`, `copyTOTP` `copy-totp`.
    var configName: String {
        var name = ""
        var previous: Character?
        for character in rawValue {
            if character.isUppercase, previous?.isLowercase == true { name += "-" }
            name += character.lowercased()
            previous = character
        }
        return name
    }

    init?(configName: String) {
        guard let action = Action.allCases.first(where: { $0.configName == configName }) else { return nil }
        self = action
    }
}
