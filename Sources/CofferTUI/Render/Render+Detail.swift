import Foundation

/// The detail page: every field, secrets masked until revealed, the cursor on the field Enter
/// copies, the history.
extension Render {
    static func drawDetail(_ state: ScreenState, detail: DetailState, body: Body, now: Date, into grid: inout Grid) {
        guard let row = state.item(detail.itemID) else {
            grid.write("The item is gone.", x: 2, y: body.top + 1, style: .dimmed)
            return
        }
        let lines = DetailLayout.lines(for: row, state: state, detail: detail, now: now)
        let labelWidth = DetailLayout.labelWidth(for: row.item)
        let selected = row.item.flatMap(detail.selectedField)
        let room = body.height
        let start = max(0, min(detail.scroll, lines.count - room))
        for (offset, line) in lines.dropFirst(start).prefix(room).enumerated() {
            let y = body.top + offset
            let isSelected = line.field != nil && line.field == selected
            if isSelected { grid.write("▸", x: 0, y: y, style: .bold) }
            if !line.label.isEmpty {
                grid.write(TextLayout.truncated(line.label, to: labelWidth - 1), x: 2, y: y,
                           style: isSelected ? .bold : .dimmed)
            }
            let x = line.isHeading ? 2 : 2 + labelWidth
            grid.write(line.text, x: x, y: y, style: line.style, maxWidth: body.width - x - 1)
        }
        if lines.count > start + room {
            grid.write("↓ more (j)", x: body.width - 12, y: body.bottom - 1, style: .dimmed)
        }
    }
}
