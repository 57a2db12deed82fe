/// How many terminal columns text takes: a `wcwidth` for grapheme clusters.
///
/// Our own table rather than the C library's so that layout and golden snapshots do not depend on
/// the process locale. It agrees with glibc's `wcwidth` on what the screen draws: East Asian wide
/// characters and emoji with emoji presentation take two columns, combining marks and format
/// characters none.
enum DisplayWidth {
    /// Columns of one grapheme cluster: the width of its first visible scalar (0, 1 or 2).
    ///
    /// Terminals draw a cluster (a letter with accents, an emoji sequence) in the cell of its first
    /// scalar; the rest combine with it.
    static func of(_ character: Character) -> Int {
        for scalar in character.unicodeScalars {
            let width = of(scalar)
            if width > 0 { return width }
        }
        return 0
    }

    /// Columns of a string when drawn on one line.
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// Columns of one scalar, as glibc's `wcwidth` in a UTF-8 locale; control characters count 0
    /// (the screen never draws them: see `Grid.sanitized`).
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark:
            return 0
        case .format:
            return value == 0xAD ? 1 : 0
        default:
            break
        }
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return isEastAsianWide(value) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth blocks (UAX #11), coarsely: whole blocks rather than code points.
    static func isEastAsianWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
             0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
