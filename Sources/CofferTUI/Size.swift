/// A terminal's size in columns and rows.
public struct Size: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public static let standard = Size(width: 80, height: 24)

    public var description: String { "\(width)×\(height)" }
}
