/// A frame of the screen as values: `height` rows of `width` cells, plus where the cursor shows.
///
/// `Render` draws into a grid; `NcursesScreen` writes the cells that differ from the last frame,
/// and tests compare `text` with golden snapshots. Writing clips at the right edge and never
/// splits a wide character: one that would not fit becomes a space.
struct Grid: Sendable, Equatable {
    struct Position: Sendable, Equatable, Hashable {
        var x: Int
        var y: Int

        init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    let size: Size
    private(set) var cells: [Cell]
    /// Where the terminal cursor shows (text input); nil hides it.
    var cursor: Position?

    init(size: Size) {
        self.size = Size(width: max(0, size.width), height: max(0, size.height))
        cells = Array(repeating: .blank, count: self.size.width * self.size.height)
    }

    subscript(x: Int, y: Int) -> Cell {
        cells[y * size.width + x]
    }

    /// Writes `text` from column `x` of row `y`, at most `maxWidth` columns (to the right edge
    /// when nil). Control characters are drawn as `�`. Returns the columns written.
    @discardableResult
    mutating func write(_ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < size.height, x < size.width else { return 0 }
        let limit = min(size.width, maxWidth.map { x + max(0, $0) } ?? size.width)
        var column = x
        for character in text {
            let shown = Grid.visible(character)
            let width = DisplayWidth.of(shown)
            if width == 0 { continue }
            if column + width > limit {
                // A wide character that does not fit leaves a blank rather than half a glyph.
                if column < limit { put(Cell(" ", style: style), at: column, y) }
                column = limit
                break
            }
            if column >= 0 {
                put(Cell(String(shown), style: style), at: column, y)
                if width == 2 { put(.continuation(style: style), at: column + 1, y) }
            }
            column += width
        }
        return max(0, column - x)
    }

    /// Paints `width` cells of row `y` from `x` as blanks in `style` (a bar's background).
    mutating func fill(x: Int = 0, y: Int, width: Int? = nil, style: Style) {
        guard y >= 0, y < size.height else { return }
        let end = min(size.width, x + (width ?? size.width))
        for column in max(0, x)..<max(max(0, x), end) { put(Cell(" ", style: style), at: column, y) }
    }

    /// Sets the style of existing cells without changing their text (highlighting a row).
    mutating func restyle(x: Int = 0, y: Int, width: Int? = nil, _ change: (inout Style) -> Void) {
        guard y >= 0, y < size.height else { return }
        let end = min(size.width, x + (width ?? size.width))
        for column in max(0, x)..<max(max(0, x), end) { change(&cells[y * size.width + column].style) }
    }

    /// One row as text: wide characters once, trailing blanks removed.
    func line(_ y: Int) -> String {
        var text = ""
        for x in 0..<size.width {
            let cell = self[x, y]
            if !cell.isContinuation { text += cell.text }
        }
        while text.last == " " { text.removeLast() }
        return text
    }

    /// The whole frame as text, one line per row (what snapshots store).
    var text: String {
        (0..<size.height).map(line).joined(separator: "\n")
    }

    private mutating func put(_ cell: Cell, at x: Int, _ y: Int) {
        let index = y * size.width + x
        // Overwriting either half of a wide character blanks the other half.
        if cells[index].isContinuation, x > 0, !cell.isContinuation {
            cells[index - 1] = Cell(" ", style: cells[index - 1].style)
        }
        if x + 1 < size.width, cells[index + 1].isContinuation, DisplayWidth.of(cells[index].text) == 2 {
            cells[index + 1] = Cell(" ", style: cells[index + 1].style)
        }
        cells[index] = cell
    }

    /// Control characters would move the terminal's cursor or start escape sequences: never draw them.
    static func visible(_ character: Character) -> Character {
        if character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "\u{FFFD}"
        }
        return character
    }
}
