/// The AMBIGUOUS listing's columns.
extension CoreError {
    /// Rows of already sanitised cells as lines indented by two spaces, each column padded to its
    /// widest cell (counted in characters, as `coffer list` counts them) and trailing spaces cut:
    /// titles of different lengths pushed the usernames and ids out of line, and the id to copy
    /// was hard to find.
    static func aligned(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            var text = "  "
            for (column, cell) in row.enumerated() {
                text += cell
                if column < row.count - 1 { text += String(repeating: " ", count: widths[column] - cell.count + 2) }
            }
            while text.last == " " { text.removeLast() }
            return text
        }
    }
}
