/// A terminal's size in columns and rows.
struct Size: Sendable, Equatable, Hashable, CustomStringConvertible {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    static let standard = Size(width: 80, height: 24)

    var description: String { "\(width)×\(height)" }
}
