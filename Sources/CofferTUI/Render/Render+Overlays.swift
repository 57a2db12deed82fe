import CofferCore

/// Boxes over the page: help (drawn from the key table), confirmations, the kind of a new item.
extension Render {
    static func drawHelp(_ state: ScreenState, body: Body, into grid: inout Grid) {
        let context = KeyContext.page(of: state)
        let bindings = KeyBindings.bindings(in: context, map: state.settings.keys)
        let top = body.top
        let height = body.height
        let origin = box(x: 0, y: top, width: body.width, height: height,
                         title: "Keys · \(context.title) (Esc closes)", into: &grid)
        // Typing contexts say where the other keys go, on the box's last line.
        let footer: String? = switch context {
        case .filter: "Other keys type into the filter; a word kind:card (login, note, identity) keeps one kind."
        default: context.takesText ? "Other keys type into the field." : nil
        }
        let rows = height - 2 - (footer == nil ? 0 : 2)
        if let footer { grid.write(footer, x: origin.x, y: origin.y + height - 3, style: .dimmed) }
        let columnCount = bindings.count > rows ? 2 : 1
        let columnWidth = (body.width - 4) / columnCount
        let keyWidth = 12
        for (index, binding) in bindings.prefix(rows * columnCount).enumerated() {
            let x = origin.x + (index / rows) * columnWidth
            let y = origin.y + index % rows
            let reason = binding.disabledReason(state)
            grid.write(binding.keyNames, x: x, y: y, style: reason == nil ? .bold : .dimmed, maxWidth: keyWidth - 1)
            grid.write(TextLayout.truncated(binding.description, to: columnWidth - keyWidth - 1), x: x + keyWidth, y: y,
                       style: reason == nil ? .plain : .dimmed)
        }
    }

    static func drawConfirmation(_ confirmation: Confirmation, state: ScreenState, body: Body, into grid: inout Grid) {
        let answers = KeyBindings.hints(for: state).joined(separator: " · ")
        let width = min(body.width - 4, max(DisplayWidth.of(confirmation.question), DisplayWidth.of(answers)) + 6)
        let x = (body.width - width) / 2
        let y = body.top + max(1, body.height / 2 - 2)
        let origin = box(x: x, y: y, width: width, height: 4, title: nil, into: &grid)
        grid.write(confirmation.question, x: origin.x, y: origin.y, style: .bold, maxWidth: width - 4)
        grid.write(answers, x: origin.x, y: origin.y + 1, style: .dimmed, maxWidth: width - 4)
    }
}

extension Render {
    /// `n`'s question: the known kinds, each with its key, the cursor on the one Enter picks.
    static func drawKindQuestion(_ question: KindQuestion, body: Body, into grid: inout Grid) {
        let kinds = ItemKind.known
        let width = min(body.width - 4, 34)
        let height = kinds.count + 2
        let x = (body.width - width) / 2
        let y = body.top + max(1, (body.height - height) / 2 - 1)
        let origin = box(x: x, y: y, width: width, height: height, title: "New item: which kind?", into: &grid)
        for (index, kind) in kinds.enumerated() {
            let isCursor = index == question.cursor
            let row = origin.y + index
            if isCursor { grid.fill(x: x + 1, y: row, width: width - 2, style: .reversed) }
            let style = isCursor ? Style.reversed : .plain
            grid.write(isCursor ? "▸" : " ", x: origin.x, y: row, style: style)
            var keyStyle = style
            keyStyle.isBold = true
            grid.write(kind.key.displayName, x: origin.x + 2, y: row, style: keyStyle)
            grid.write(kind.label, x: origin.x + 5, y: row, style: style, maxWidth: width - 8)
        }
    }
}

extension Render {
    /// `w`'s and `a`'s question: the path, editable, with the terminal's cursor in it.
    static func drawPathPrompt(_ prompt: PathPrompt, state: ScreenState, body: Body, into grid: inout Grid) {
        let answers = KeyBindings.hints(for: state).joined(separator: " · ")
        let width = body.width - 4
        let x = 2
        let y = body.top + max(1, body.height / 2 - 2)
        let origin = box(x: x, y: y, width: width, height: 5, title: prompt.title, into: &grid)
        let (visible, cursorColumn) = scrolled(fieldText(prompt.path, isMasked: false), cursor: prompt.path.cursor,
                                               width: width - 4)
        grid.write(visible, x: origin.x, y: origin.y, maxWidth: width - 4)
        grid.cursor = Grid.Position(x: origin.x + cursorColumn, y: origin.y)
        let note = switch prompt.purpose {
        case .saveFile: "Written 0600; an existing file is replaced only if you say so."
        case .addFile: "At most 16 MiB; kept under the file's own name."
        }
        grid.write(note, x: origin.x, y: origin.y + 1, style: .dimmed, maxWidth: width - 4)
        grid.write(answers, x: origin.x, y: origin.y + 2, style: .dimmed, maxWidth: width - 4)
    }
}
