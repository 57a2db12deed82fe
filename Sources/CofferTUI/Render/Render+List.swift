import CofferCore

/// The list page: badges, the kind's glyph, title, username (a card's cardholder, an identity's
/// name), first origin, tags. Item text goes through `TerminalText`: it may come from another device.
extension Render {
    struct ListColumns {
        var title: Int
        var username: Int
        var origin: Int
        var tags: Int

        static let badges = 4
        /// The kind's glyph, after the badges and a space.
        static let kind = ListColumns.badges + 2
        /// Where the title starts.
        static let text = ListColumns.kind + 2

        init(width: Int) {
            let available = max(12, width - ListColumns.text - 3)
            title = available * 32 / 100
            username = available * 22 / 100
            origin = available * 26 / 100
            tags = available - title - username - origin
        }
    }

    static func drawList(_ state: ScreenState, body: Body, into grid: inout Grid) {
        let columns = ListColumns(width: body.width)
        let header = Style(isBold: true, isUnderlined: true)
        grid.fill(y: body.top, style: header)
        var x = ListColumns.text
        for (name, width) in [("Title", columns.title), ("Username", columns.username), ("Origin", columns.origin),
                              ("Tags", columns.tags)] {
            grid.write(name, x: x, y: body.top, style: header, maxWidth: width)
            x += width + 1
        }
        let rows = state.visibleItems
        let firstRow = body.top + 1
        guard !rows.isEmpty else {
            let message = state.listedCount == 0
                ? (state.items.isEmpty ? "The vault is empty. Press n to add an item."
                   : "Every item is in the trash (Z shows it). Press n to add an item.")
                : "No item matches “\(TerminalText.line(state.list.filter.text))”. Esc clears the filter."
            grid.write(message, x: ListColumns.text, y: firstRow + 1, style: .dimmed)
            return
        }
        let selected = state.selectedIndex
        let room = body.bottom - firstRow
        for (offset, index) in (state.list.top..<min(rows.count, state.list.top + room)).enumerated() {
            let y = firstRow + offset
            drawRow(rows[index], columns: columns, y: y, isSelected: index == selected, into: &grid)
        }
    }

    static func drawRow(_ row: ScreenItem, columns: ListColumns, y: Int, isSelected: Bool, into grid: inout Grid) {
        var base = row.isDisabled || row.item == nil ? Style.dimmed : Style.plain
        if isSelected {
            base.isReversed = true
            grid.fill(y: y, style: base)
        }
        // Badges keep their colours so a selected row still shows them.
        let badges: [(Bool, String, Style.Color)] = [
            (row.hasConflict, "⚠", .yellow), (row.needsReview, "⚑", .magenta),
            (row.hasLocalChange, "↑", .cyan), (row.isDisabled, "⊘", .red),
        ]
        for (index, (isOn, glyph, color)) in badges.enumerated() where isOn {
            grid.write(glyph, x: 1 + index, y: y, style: base.with(color: color))
        }
        let item = row.item
        if let item { grid.write(String(ItemKind.columnGlyph(ofKindNamed: item.entry.kind)), x: ListColumns.kind, y: y, style: base) }
        var x = ListColumns.text
        let origin = item?.origins.first.map(shortOrigin) ?? ""
        let cells = [
            (row.displayTitle, columns.title),
            (item.map { ItemKind.listedName(of: $0.entry) } ?? "", columns.username),
            (origin, columns.origin),
            (item?.tags.joined(separator: ", ") ?? "", columns.tags),
        ]
        for (text, width) in cells {
            grid.write(TextLayout.truncated(TerminalText.line(text), to: width), x: x, y: y, style: base, maxWidth: width)
            x += width + 1
        }
    }

    /// An origin without its scheme: the list has little room.
    static func shortOrigin(_ origin: String) -> String {
        for scheme in ["https://", "http://"] where origin.lowercased().hasPrefix(scheme) {
            return String(origin.dropFirst(scheme.count))
        }
        return origin
    }
}
