/// How a cell is drawn. Colour is only a hint: with `NO_COLOR` the screen drops it and keeps the
/// attributes, so nothing is told by colour alone (badges and errors also carry a glyph or word).
struct Style: Sendable, Equatable, Hashable {
    enum Color: Int, Sendable, CaseIterable {
        case red = 1, green, yellow, blue, magenta, cyan
    }

    var color: Color?
    var isBold = false
    var isReversed = false
    var isDimmed = false
    var isUnderlined = false

    init(color: Color? = nil, isBold: Bool = false, isReversed: Bool = false, isDimmed: Bool = false,
                isUnderlined: Bool = false) {
        self.color = color
        self.isBold = isBold
        self.isReversed = isReversed
        self.isDimmed = isDimmed
        self.isUnderlined = isUnderlined
    }

    static let plain = Style()
    static let bold = Style(isBold: true)
    static let reversed = Style(isReversed: true)
    static let dimmed = Style(isDimmed: true)
    static let underlined = Style(isUnderlined: true)
    static let error = Style(color: .red, isBold: true)
    static let warning = Style(color: .yellow, isBold: true)
    static let success = Style(color: .green)
    static let accent = Style(color: .cyan)

    func with(color: Color?) -> Style {
        var copy = self
        copy.color = color
        return copy
    }

    var reversedToggled: Style {
        var copy = self
        copy.isReversed.toggle()
        return copy
    }
}
