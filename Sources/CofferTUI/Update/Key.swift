/// A key press, decoded from the terminal.
enum Key: Sendable, Hashable {
    /// A printable character (text input, or a command key such as `j`).
    case character(Character)
    /// Ctrl with a letter, as the lowercase letter (`control("g")` is Ctrl-G).
    case control(Character)
    /// F1…F12.
    case function(Int)
    case up, down, left, right, home, end, pageUp, pageDown
    case enter, escape, tab, backTab, backspace, delete

    /// How the help screen and the hints name the key.
    var displayName: String {
        switch self {
        case .character(" "): return "Space"
        case .character(let character): return String(character)
        case .control(let letter): return "^" + letter.uppercased()
        case .function(let number): return "F\(number)"
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .home: return "Home"
        case .end: return "End"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .tab: return "Tab"
        case .backTab: return "S-Tab"
        case .backspace: return "Bksp"
        case .delete: return "Del"
        }
    }

    /// The character this key types into a text field, if it types one.
    var typedCharacter: Character? {
        if case .character(let character) = self { return character }
        return nil
    }
}
