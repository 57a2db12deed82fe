import CofferCore
import Foundation

/// Draws a state into a grid: pure, so every screen can be asserted as text.
///
/// Layout: row 0 is the title bar, the last row the status bar, the one above it the hint line
/// (or a notice, or the filter being typed); the page uses the rows between.
enum Render {
    static let minimumSize = Size(width: 40, height: 10)
    static let spinnerFrames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    static func frame(_ state: ScreenState, size: Size, now: Date) -> Grid {
        var grid = Grid(size: size)
        guard size.width >= minimumSize.width, size.height >= minimumSize.height else {
            let message = "Make the terminal at least \(minimumSize.width)×\(minimumSize.height)."
            for (row, line) in TextLayout.wrapped(message, to: max(1, size.width)).enumerated() {
                grid.write(line, x: 0, y: row)
            }
            return grid
        }
        titleBar(state, into: &grid)
        let body = Body(top: 1, bottom: size.height - 2, width: size.width)
        switch state.page {
        case .firstRun(let form): drawFirstRun(state, form: form, body: body, now: now, into: &grid)
        case .locked(let prompt): drawLocked(state, prompt: prompt, body: body, now: now, into: &grid)
        case .list: drawList(state, body: body, into: &grid)
        case .detail(let detail): drawDetail(state, detail: detail, body: body, now: now, into: &grid)
        case .form(let form): drawForm(state, form: form, body: body, into: &grid)
        case .review(let review): drawReview(state, review: review, body: body, into: &grid)
        case .devices(let page): drawDevices(state, page: page, body: body, into: &grid)
        case .health(let page): drawHealth(state, page: page, body: body, into: &grid)
        case .trash(let page): drawTrash(state, page: page, body: body, into: &grid)
        case .members(let page): drawMembers(state, page: page, body: body, into: &grid)
        case .vaults(let page): drawVaults(state, page: page, body: body, into: &grid)
        }
        hintLine(state, into: &grid)
        statusBar(state, now: now, into: &grid)
        switch state.overlay {
        case .help:
            drawHelp(state, body: body, into: &grid)
        case .confirm(let confirmation):
            drawConfirmation(confirmation, state: state, body: body, into: &grid)
        case .chooseKind(let question):
            drawKindQuestion(question, body: body, into: &grid)
        case .path(let prompt):
            drawPathPrompt(prompt, state: state, body: body, into: &grid)
        case nil:
            break
        }
        return grid
    }

    /// The rows a page may draw on: `top..<bottom`.
    struct Body {
        var top: Int
        var bottom: Int
        var width: Int

        var height: Int { bottom - top }
    }

    static func spinner(since start: Date, now: Date) -> Character {
        let frame = Int((now.timeIntervalSince(start) * 10).rounded(.down))
        return spinnerFrames[((frame % spinnerFrames.count) + spinnerFrames.count) % spinnerFrames.count]
    }

    // MARK: Chrome

    static func titleBar(_ state: ScreenState, into grid: inout Grid) {
        let bar = Style(isBold: true, isReversed: true)
        grid.fill(y: 0, style: bar)
        let left = " Coffer · \(state.vaultTitle)"
        let right = pageTitle(state) + " "
        let rightWidth = DisplayWidth.of(right)
        grid.write(left, x: 0, y: 0, style: bar, maxWidth: max(0, grid.size.width - rightWidth - 1))
        grid.write(right, x: max(0, grid.size.width - rightWidth), y: 0, style: bar)
    }

    static func pageTitle(_ state: ScreenState) -> String {
        switch state.page {
        case .firstRun: return "New vault"
        case .locked: return "🔒 Locked"
        case .list:
            let shown = state.visibleItems.count
            let order = state.list.sort == .title ? "by title" : "by last modified"
            if !state.list.filter.isEmpty {
                return "/\(TextLayout.truncated(state.list.filter.text, to: 20)) · \(shown) of \(state.listedCount) · \(order)"
            }
            if state.isOpeningItems { return "opening… \(Format.count(state.listedCount, "item")) so far · \(order)" }
            return "\(Format.count(state.listedCount, "item")) · \(order)"
        case .detail: return "Item"
        case .form(let form):
            return (form.isNew ? "New item · " : "Edit item · ") + ItemKind.shownLabel(ofKindNamed: form.kindName)
        case .review(let review): return "Review · \(Format.count(review.reviews.count, "merged item"))"
        case .devices(let page): return page.devices.map { Format.count($0.count, "device") } ?? "Devices"
        case .health: return state.health.map { "Health · " + Format.count($0.rows.count, "item") + " to fix" } ?? "Health"
        case .trash: return "Trash · " + Format.count(state.trashedItems.count, "item")
        case .members: return state.summary.share.map { Format.count($0.members.count, "member") } ?? "Members"
        case .vaults(let page): return page.choices.map { "Vaults · \($0.count)" } ?? "Vaults"
        }
    }

    static func hintLine(_ state: ScreenState, into grid: inout Grid) {
        let y = grid.size.height - 2
        if state.overlay == nil, case .list = state.page, state.list.isFilterFocused {
            let filter = state.list.filter
            let before = "/" + TextLayout.singleLine(String(filter.characters[..<filter.cursor]))
            grid.write("/" + TextLayout.singleLine(filter.text), x: 0, y: y)
            grid.cursor = Grid.Position(x: min(grid.size.width - 1, DisplayWidth.of(before)), y: y)
            return
        }
        if let notice = state.notice {
            drawNotice(notice, bottom: y, into: &grid)
            return
        }
        // Help's hint always shows, at the end: it leads to every other key.
        var hints = KeyBindings.hints(for: state)
        let helpHint = hints.firstIndex { $0.hasSuffix(" help") }.map { hints.remove(at: $0) }
        let reserved = helpHint.map { DisplayWidth.of($0) + 2 } ?? 0
        var x = 1
        for hint in hints {
            let width = DisplayWidth.of(hint)
            if x + width > grid.size.width - 1 - reserved { break }
            x += drawHint(hint, x: x, y: y, into: &grid) + 2
        }
        if let helpHint { drawHint(helpHint, x: x, y: y, into: &grid) }
    }

    /// A notice on the hint line, or on two lines (the page's last row and the hint line) when it
    /// is longer than the screen is wide: cut at the edge, "…the other value in history (⚑, v to
    /// revi" could not be read to its end. Past two lines the second ends in "…".
    static func drawNotice(_ notice: Notice, bottom y: Int, into grid: inout Grid) {
        let style: Style = notice.isError ? .error : .accent
        let width = grid.size.width - 1
        var lines = TextLayout.wrapped(TextLayout.singleLine(notice.text), to: width)
        if lines.count > 2 {
            lines = [lines[0], TextLayout.truncated(lines[1...].joined(separator: " "), to: width)]
        }
        for (offset, line) in lines.reversed().enumerated() {
            let row = y - offset
            grid.fill(y: row, style: Style())
            grid.write(" " + line, x: 0, y: row, style: style)
        }
    }

    /// "n new": the key in bold, its meaning dimmed.
    @discardableResult
    static func drawHint(_ hint: String, x: Int, y: Int, into grid: inout Grid) -> Int {
        let parts = hint.split(separator: " ", maxSplits: 1).map(String.init)
        var written = grid.write(parts[0], x: x, y: y, style: .bold)
        if parts.count > 1 { written += grid.write(" " + parts[1], x: x + written, y: y, style: .dimmed) }
        return written
    }

    static func statusBar(_ state: ScreenState, now: Date, into grid: inout Grid) {
        let y = grid.size.height - 1
        let bar = Style(isReversed: true)
        grid.fill(y: y, style: bar)
        let segments = StatusBar.segments(state, now: now)
        let text = StatusBar.fit(segments, width: grid.size.width - 1)
        grid.write(" " + text, x: 0, y: y, style: bar)
    }

    // MARK: Boxes

    /// Draws a bordered box and clears its inside; returns the inner rectangle's origin.
    @discardableResult
    static func box(x: Int, y: Int, width: Int, height: Int, title: String?, into grid: inout Grid) -> Grid.Position {
        let style = Style.plain
        for row in y..<(y + height) { grid.fill(x: x, y: row, width: width, style: style) }
        let horizontal = String(repeating: "─", count: max(0, width - 2))
        grid.write("┌" + horizontal + "┐", x: x, y: y)
        for row in (y + 1)..<(y + height - 1) {
            grid.write("│", x: x, y: row)
            grid.write("│", x: x + width - 1, y: row)
        }
        grid.write("└" + horizontal + "┘", x: x, y: y + height - 1)
        if let title { grid.write(" \(title) ", x: x + 2, y: y, style: .bold, maxWidth: width - 4) }
        return Grid.Position(x: x + 2, y: y + 1)
    }
}
