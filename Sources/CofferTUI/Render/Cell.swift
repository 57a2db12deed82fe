/// One column of the screen: a grapheme cluster and its style.
///
/// A character two columns wide sits in the left cell; the right one is a continuation (empty
/// text) so that every row of a grid is exactly `width` cells and columns line up as on screen.
struct Cell: Sendable, Equatable, Hashable {
    var text: String
    var style: Style

    init(_ text: String = " ", style: Style = .plain) {
        self.text = text
        self.style = style
    }

    static let blank = Cell()

    /// The right half of a wide character.
    static func continuation(style: Style) -> Cell { Cell("", style: style) }

    var isContinuation: Bool { text.isEmpty }
}
