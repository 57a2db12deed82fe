/// The conflict review page: per merged item, each field changed on both sides.
extension Render {
    static func drawReview(_ state: ScreenState, review: ReviewState, body: Body, into grid: inout Grid) {
        let nameWidth = 10
        let valueWidth = max(8, (body.width - nameWidth - 8) * 30 / 100)
        let keptWidth = body.width - nameWidth - 2 * valueWidth - 8
        let columns = [4, 4 + nameWidth + 1, 4 + nameWidth + valueWidth + 2, 4 + nameWidth + 2 * valueWidth + 3]
        grid.write("Changed on this device and another; the merge kept one value. Space swaps it.",
                   x: 1, y: body.top, style: .dimmed, maxWidth: body.width - 2)
        let header = Style(isBold: true, isUnderlined: true)
        grid.fill(y: body.top + 1, style: header)
        for (title, x) in zip(["Field", "This device", "Other device", "Kept"], columns) {
            grid.write(title, x: x, y: body.top + 1, style: header)
        }
        // Lines: an item heading, then its fields; scrolled so the cursor's row shows.
        var lines: [(rowIndex: Int?, reviewIndex: Int)] = []
        var rowIndex = 0
        for (index, item) in review.reviews.enumerated() {
            lines.append((nil, index))
            for _ in item.fields {
                lines.append((rowIndex, index))
                rowIndex += 1
            }
        }
        let room = body.bottom - (body.top + 2)
        let cursorLine = lines.firstIndex { $0.rowIndex == review.cursor } ?? 0
        let start = max(0, min(cursorLine - room + 1, lines.count - room))
        let rows = review.rows
        for (offset, line) in lines.dropFirst(max(0, start)).prefix(room).enumerated() {
            let y = body.top + 2 + offset
            guard let index = line.rowIndex else {
                let item = review.reviews[line.reviewIndex]
                let saving = review.saving.contains(item.itemID) ? "  saving…" : ""
                grid.write("⚑ " + item.title + saving, x: 1, y: y, style: .bold, maxWidth: body.width - 2)
                continue
            }
            let position = rows[index]
            let field = review.reviews[position.review].fields[position.field]
            let isCursor = index == review.cursor
            let style = isCursor ? Style.reversed : .plain
            if isCursor { grid.fill(y: y, style: style) }
            grid.write(isCursor ? "▸" : " ", x: 2, y: y, style: style)
            func shown(_ value: String) -> String {
                if field.isSecret, !review.isRevealed { return value.isEmpty ? "—" : DetailLayout.mask }
                return value.isEmpty ? "—" : TextLayout.singleLine(value)
            }
            let kept: String
            switch field.chosen {
            case .local: kept = "this device"
            case .remote: kept = "other device"
            case .combined: kept = "both: " + shown(field.value(of: .combined))
            }
            let swapped = field.chosen != field.mergeChoice ? " (yours)" : ""
            let values = [field.name, shown(field.local), shown(field.remote), kept + swapped]
            for (value, (x, width)) in zip(values, zip(columns, [nameWidth, valueWidth, valueWidth, keptWidth])) {
                grid.write(TextLayout.truncated(value, to: width), x: x, y: y, style: style, maxWidth: width)
            }
            let chosenColumn = field.chosen == .local ? 1 : (field.chosen == .remote ? 2 : nil)
            if let chosenColumn {
                // The kept value in bold, so the choice reads across the row.
                grid.restyle(x: columns[chosenColumn], y: y, width: valueWidth) {
                    $0.isBold = true
                }
            }
        }
    }
}
