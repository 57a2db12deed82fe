/// A list page's rows under its header, scrolled to keep the cursor in view, with the cursor's row
/// reversed and marked (the Health and Trash pages).
extension Render {
    /// Draws the visible part of `count` rows below `body`'s header row, leaving the footer's two
    /// rows free: for each, `draw(index, y, style, isCursor)` writes the columns after the marker.
    static func drawCursorRows(count: Int, cursor: Int, body: Body, into grid: inout Grid,
                               _ draw: (_ index: Int, _ y: Int, _ style: Style, _ isCursor: Bool, _ grid: inout Grid) -> Void) {
        let room = max(1, body.height - 3)
        let top = max(0, min(cursor - room + 1, count - room))
        for index in top..<min(count, top + room) {
            let y = body.top + 1 + index - top
            let isCursor = index == cursor
            let style = isCursor ? Style.reversed : .plain
            if isCursor { grid.fill(y: y, style: style) }
            grid.write(isCursor ? "▸" : " ", x: 1, y: y, style: style)
            draw(index, y, style, isCursor, &grid)
        }
    }
}
