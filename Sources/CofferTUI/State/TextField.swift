/// An editable line of text with a cursor, counted in characters.
struct TextField: Sendable, Equatable {
    private(set) var characters: [Character]
    /// 0…count: the cursor sits before `characters[cursor]`.
    private(set) var cursor: Int

    init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    var text: String { String(characters) }
    var isEmpty: Bool { characters.isEmpty }

    mutating func insert(_ character: Character) {
        characters.insert(character, at: cursor)
        cursor += 1
    }

    mutating func deleteBackward() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    mutating func moveLeft() { cursor = max(0, cursor - 1) }
    mutating func moveRight() { cursor = min(characters.count, cursor + 1) }
    mutating func moveToStart() { cursor = 0 }
    mutating func moveToEnd() { cursor = characters.count }

    mutating func replace(with text: String) {
        characters = Array(text)
        cursor = characters.count
    }

    /// Applies an editing key; returns false when the key is not an editing key.
    mutating func edit(with key: Key) -> Bool {
        switch key {
        case .character(let character): insert(character)
        case .backspace: deleteBackward()
        case .delete: deleteForward()
        case .left: moveLeft()
        case .right: moveRight()
        case .home, .control("a"): moveToStart()
        case .end, .control("e"): moveToEnd()
        case .control("u"):
            characters.removeSubrange(0..<cursor)
            cursor = 0
        case .control("k"): characters.removeSubrange(cursor...)
        default: return false
        }
        return true
    }
}
