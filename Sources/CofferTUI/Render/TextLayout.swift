/// Fitting text into columns.
enum TextLayout {
    /// `text` cut to at most `width` columns, ending in `…` when cut.
    static func truncated(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard DisplayWidth.of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let columns = DisplayWidth.of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// `text` on one line: line breaks and tabs drawn as visible marks.
    static func singleLine(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\n", "\r\n", "\r": result += "↵"
            case "\t": result += " "
            default: result.append(character)
            }
        }
        return result
    }

    /// `text` cut into lines of at most `width` columns, breaking at spaces where it can.
    static func wrapped(_ text: String, to width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                let wordWidth = DisplayWidth.of(String(word))
                if used > 0, used + 1 + wordWidth > width {
                    lines.append(line)
                    line = ""
                    used = 0
                }
                if used > 0 {
                    line += " "
                    used += 1
                }
                if wordWidth > width {
                    // A word longer than the line is cut by columns.
                    for character in word {
                        let columns = DisplayWidth.of(character)
                        if used + columns > width {
                            lines.append(line)
                            line = ""
                            used = 0
                        }
                        line.append(character)
                        used += columns
                    }
                } else {
                    line += word
                    used += wordWidth
                }
            }
            lines.append(line)
        }
        return lines
    }
}
