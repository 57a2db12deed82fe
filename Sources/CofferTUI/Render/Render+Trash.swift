import CofferCore
import Foundation

/// The Trash view (issue 43): one row per item in the trash, the most recently trashed first.
extension Render {
    static func drawTrash(_ state: ScreenState, page: TrashPage, body: Body, into grid: inout Grid) {
        let header = Style(isBold: true, isUnderlined: true)
        grid.fill(y: body.top, style: header)
        let kindX = max(24, body.width / 2)
        let timeX = kindX + 12
        grid.write("Item", x: 2, y: body.top, style: header)
        grid.write("Kind", x: kindX, y: body.top, style: header)
        grid.write("Trashed", x: timeX, y: body.top, style: header)
        grid.write("Kept \(TrashRules.keptDays) days, then removed for good at a sync; r restores, E empties now.",
                   x: 2, y: body.bottom - 1, style: .dimmed, maxWidth: body.width - 4)
        let rows = state.trashedItems
        guard !rows.isEmpty else {
            grid.write("The trash is empty.", x: 2, y: body.top + 2, style: .dimmed)
            return
        }
        drawCursorRows(count: rows.count, cursor: page.cursor, body: body, into: &grid) { index, y, style, isCursor, grid in
            let row = rows[index]
            // Titles and kinds may come from another device: TerminalText before they are drawn.
            grid.write(TerminalText.line(row.displayTitle), x: 2, y: y, style: style, maxWidth: kindX - 3)
            let kind = row.item.map { ItemKind.shownLabel(ofKindNamed: $0.entry.kind) } ?? ""
            grid.write(kind, x: kindX, y: y, style: style, maxWidth: timeX - kindX - 1)
            let trashed = row.item?.trashed.map { Format.dateTime($0, in: state.settings.timeZone) } ?? ""
            grid.write(trashed, x: timeX, y: y, style: isCursor ? style : .dimmed, maxWidth: body.width - timeX - 1)
        }
    }
}
