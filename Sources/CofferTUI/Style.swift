/// How a cell is drawn. Colour is only a hint: with `NO_COLOR` the screen drops it and keeps the
/// attributes, so nothing is told by colour alone (badges and errors also carry a glyph or word).
public struct Style: Sendable, Equatable, Hashable {
    public enum Color: Int, Sendable, CaseIterable {
        case red = 1, green, yellow, blue, magenta, cyan
    }

    public var color: Color?
    public var isBold = false
    public var isReversed = false
    public var isDimmed = false
    public var isUnderlined = false

    public init(color: Color? = nil, isBold: Bool = false, isReversed: Bool = false, isDimmed: Bool = false,
                isUnderlined: Bool = false) {
        self.color = color
        self.isBold = isBold
        self.isReversed = isReversed
        self.isDimmed = isDimmed
        self.isUnderlined = isUnderlined
    }

    public static let plain = Style()
    public static let bold = Style(isBold: true)
    public static let reversed = Style(isReversed: true)
    public static let dimmed = Style(isDimmed: true)
    public static let underlined = Style(isUnderlined: true)
    public static let error = Style(color: .red, isBold: true)
    public static let warning = Style(color: .yellow, isBold: true)
    public static let success = Style(color: .green)
    public static let accent = Style(color: .cyan)

    public func with(color: Color?) -> Style {
        var copy = self
        copy.color = color
        return copy
    }

    public var reversedToggled: Style {
        var copy = self
        copy.isReversed.toggle()
        return copy
    }
}
