import CofferCore

/// Keys as `config.toml`'s `[keys]` names them, and which of them the screen can receive.
///
/// The names are the help page's (`Key.displayName`: `j`, `^G`, `F5`, `↓`, `Enter`, `Esc`,
/// `Space`…) with words for the arrows and a few spellings editors use (`Down`, `C-g`, `Ctrl-G`).
enum KeyName {
    /// Control keys the screen never sees as themselves: ^C, ^Z, ^S and ^Q the terminal turns into
    /// a signal or flow control; ^H, ^I, ^M and ^[ arrive as Backspace, Tab, Enter and Esc.
    static let unreceivableControls: Set<Character> = ["c", "z", "s", "q", "h", "i", "m", "["]

    /// The key `name` names, or why it names none the screen can receive.
    static func key(named name: String) -> Result<Key, KeyNameProblem> {
        let words: [String: Key] = [
            "space": .character(" "), "enter": .enter, "return": .enter, "↵": .enter, "esc": .escape, "escape": .escape,
            "tab": .tab, "s-tab": .backTab, "backtab": .backTab, "bksp": .backspace, "backspace": .backspace,
            "del": .delete, "delete": .delete, "up": .up, "↑": .up, "down": .down, "↓": .down, "left": .left,
            "←": .left, "right": .right, "→": .right, "home": .home, "end": .end, "pgup": .pageUp, "pageup": .pageUp,
            "pgdn": .pageDown, "pagedown": .pageDown,
        ]
        if let key = words[name.lowercased()] { return .success(key) }
        if name.count == 1, let character = name.first {
            guard character.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control && $0 != " " }),
                  character.unicodeScalars.count == 1 else { return .failure(.notOneKey(name)) }
            return .success(.character(character))
        }
        let lowered = name.lowercased()
        if lowered.hasPrefix("f"), let number = Int(lowered.dropFirst()), String(number) == lowered.dropFirst() {
            return (1...12).contains(number) ? .success(.function(number)) : .failure(.unknown(name))
        }
        for prefix in ["^", "c-", "ctrl-", "ctrl+"] where lowered.hasPrefix(prefix) && lowered.count == prefix.count + 1 {
            guard let letter = lowered.last, letter.isASCII, letter.isLetter || letter == "[" else { return .failure(.unknown(name)) }
            if unreceivableControls.contains(letter) { return .failure(.unreceivable(name)) }
            return .success(.control(letter))
        }
        return .failure(.unknown(name))
    }
}

enum KeyNameProblem: Error, Equatable {
    case unknown(String), notOneKey(String), unreceivable(String)

    var reason: String {
        switch self {
        case .unknown(let name):
            return "names a key “\(TerminalText.line(name))” Coffer does not know (a character, ^X, F1–F12, Enter, Esc, Tab, "
                + "S-Tab, Space, Bksp, Del, Up, Down, Left, Right, Home, End, PgUp, PgDn)"
        case .notOneKey(let name):
            return "names “\(TerminalText.line(name))”, which is not one key"
        case .unreceivable(let name):
            return "names \(name), which the screen cannot receive (the terminal keeps ^C, ^Z, ^S and ^Q; ^H, ^I, ^M and "
                + "^[ arrive as Bksp, Tab, Enter and Esc)"
        }
    }
}
