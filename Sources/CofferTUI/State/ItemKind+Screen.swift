import CofferCore

/// How the screen names and picks kinds.
extension ItemKind {
    /// The list's kind column for an entry of kind `name`: the kind's glyph, `?` for a kind this
    /// version does not know.
    static func columnGlyph(ofKindNamed name: String) -> Character {
        named(name)?.glyph ?? "?"
    }

    /// The key that picks this kind when `N` asks which kind: its glyph in lower case (`c`: card).
    var key: Key { .character(Character(glyph.lowercased())) }

    /// The kind after `kind` in the order `n` offers them, the first after the last (what ^K steps
    /// through in a new item's form).
    static func following(_ kind: ItemKind) -> ItemKind {
        let index = known.firstIndex(of: kind).map { $0 + 1 } ?? 0
        return known[index % known.count]
    }

    /// The known kind `key` picks.
    static func picked(by key: Key) -> ItemKind? {
        known.first { $0.key == key }
    }

    /// What the screen calls the kind of an entry: the label of a known kind, else its name as
    /// written (through `TerminalText`: another device wrote it).
    static func shownLabel(ofKindNamed name: String) -> String {
        named(name)?.label ?? TerminalText.line(name)
    }
}
