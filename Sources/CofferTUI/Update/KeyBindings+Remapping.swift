/// The key table with `config.toml`'s remaps applied (`KeyMap`), and the check that no key then
/// does two things on one page.
extension KeyBindings {
    /// The actions a remap may name: every action of the table.
    static let remappable = Set(table.filter(\.isRemappable).map(\.action))

    /// Every key and action that share a page in the standard table with another action: the
    /// table's own overlaps (the first row wins) are not a remap's doing.
    private static let standardPairs: Set<KeyUse> = keyUses(in: table)

    struct KeyUse: Hashable {
        var context: KeyContext
        var key: Key
        var actions: Set<Action>
    }

    /// `table` with each remapped action's rows given its new keys.
    static func table(remapping remapped: [Action: [Key]]) -> [KeyBinding] {
        guard !remapped.isEmpty else { return table }
        let renames = hintRenames(remapped)
        return table.flatMap { row -> [KeyBinding] in
            var row = row
            row.hint = row.hint.map { renamedHint($0, with: renames, in: row.contexts) }
            guard row.isRemappable, let keys = remapped[row.action] else { return [row] }
            // Where keys type, printable remaps stay out: the field keeps its letters.
            let typing = row.contexts.filter(\.takesText)
            let browsing = row.contexts.subtracting(typing)
            let typingKeys = keys.filter { $0.typedCharacter == nil }
            var rows: [KeyBinding] = []
            if !browsing.isEmpty {
                var moved = row
                moved.contexts = browsing
                moved.keys = keys
                rows.append(moved)
            }
            if !typing.isEmpty {
                var kept = row
                kept.contexts = typing
                kept.keys = typingKeys.isEmpty ? row.keys : typingKeys
                if !typingKeys.isEmpty, let hint = row.hint, let old = row.keys.first, let new = typingKeys.first {
                    kept.hint = hint.replacingFirstWord(old.displayName, with: new.displayName)
                }
                rows.append(kept)
            }
            return rows
        }
    }

    /// A key that does two actions on one page because of a remap.
    struct Clash {
        var key: Key
        var context: KeyContext
        var remapped: Action
        var other: Action
    }

    static func firstClash(in table: [KeyBinding], remapped: Set<Action>) -> Clash? {
        // In the pages' order, so the sentence names the page a user meets first (the list).
        let order = Dictionary(uniqueKeysWithValues: KeyContext.allCases.enumerated().map { ($1, $0) })
        for use in keyUses(in: table).sorted(by: { (order[$0.context] ?? 0, $0.key.displayName) < (order[$1.context] ?? 0, $1.key.displayName) })
        where !standardPairs.contains(use) {
            guard let ours = use.actions.filter(remapped.contains).sorted(by: { $0.rawValue < $1.rawValue }).first,
                  let other = use.actions.subtracting([ours]).sorted(by: { $0.rawValue < $1.rawValue }).first else { continue }
            return Clash(key: use.key, context: use.context, remapped: ours, other: other)
        }
        return nil
    }

    /// Each key that more than one action has on one page.
    private static func keyUses(in table: [KeyBinding]) -> Set<KeyUse> {
        var actions: [KeyContext: [Key: Set<Action>]] = [:]
        for row in table {
            for context in row.contexts {
                for key in row.keys { actions[context, default: [:]][key, default: []].insert(row.action) }
            }
        }
        var uses = Set<KeyUse>()
        for (context, keys) in actions {
            for (key, set) in keys where set.count > 1 { uses.insert(KeyUse(context: context, key: key, actions: set)) }
        }
        return uses
    }

    /// Old key name → new key name, for the hints: a hint starts with its keys ("c copy pw",
    /// "w/a/x files").
    private static func hintRenames(_ remapped: [Action: [Key]]) -> [(old: String, new: String, contexts: Set<KeyContext>)] {
        var renames: [(String, String, Set<KeyContext>)] = []
        for row in table where row.isRemappable {
            guard let keys = remapped[row.action], let new = keys.first else { continue }
            let contexts = row.contexts.filter { !$0.takesText || new.typedCharacter == nil }
            for old in row.keys where !keys.contains(old) { renames.append((old.displayName, new.displayName, contexts)) }
        }
        return renames
    }

    private static func renamedHint(_ hint: String, with renames: [(old: String, new: String, contexts: Set<KeyContext>)],
                                    in contexts: Set<KeyContext>) -> String {
        guard let space = hint.firstIndex(of: " ") else { return hint }
        func renamed(_ name: Substring) -> String? {
            renames.first { $0.old == name && !$0.contexts.isDisjoint(with: contexts) }?.new
        }
        // The whole word first: `/` is a key as well as the separator of "w/a/x".
        if let whole = renamed(hint[..<space]) { return whole + hint[space...] }
        let parts = hint[..<space].split(separator: "/", omittingEmptySubsequences: false).map { renamed($0) ?? String($0) }
        return parts.joined(separator: "/") + hint[space...]
    }
}

private extension String {
    func replacingFirstWord(_ old: String, with new: String) -> String {
        guard let space = firstIndex(of: " "), self[..<space] == old else { return self }
        return new + self[space...]
    }
}
