import CofferCore

/// The item form: one field per row (a custom field's label and value on one), its hint or its
/// problems under it, the generator in a box. A form taller than the page scrolls with the focus.
extension Render {
    static let formLabelWidth = 11
    /// The columns a custom field's type takes at the end of its row.
    static let formTypeWidth = 8

    /// One row of the form before scrolling.
    enum FormRow: Equatable {
        case formProblem(String)
        case blank
        /// A field's row (a custom field's: its label and value).
        case field(ItemForm.Field)
        case hint(String)
        case problem(String)
        case note(String)
        case saving(String)
    }

    /// The label column's width: the kind's longest label and two spaces, at least `formLabelWidth`.
    static func formLabelWidth(for form: ItemForm) -> Int {
        let longest = form.fields.map { DisplayWidth.of(form.label($0)) }.max() ?? 0
        return min(DetailLayout.widestLabelColumn, max(formLabelWidth, longest + 2))
    }

    /// The form's rows in order, and the range of those that belong to the focused field.
    static func formRows(_ state: ScreenState, form: ItemForm) -> (rows: [FormRow], focused: ClosedRange<Int>) {
        var rows: [FormRow] = form.formProblems.map(FormRow.formProblem)
        if !rows.isEmpty { rows.append(.blank) }
        var focused = 0...0
        for field in form.fields {
            if case .customValue = field { continue }  // on its label's row
            if form.editsFields, field == (form.fields.first { $0.customID != nil } ?? .disabled) {
                rows.append(.note(form.custom.isEmpty ? "Custom fields: none (^N adds one)" : "Custom fields"))
            }
            let start = rows.count
            rows.append(.field(field))
            let ownFields = field.customID.map { [ItemForm.Field.customLabel($0), .customValue($0)] } ?? [field]
            let problems = ownFields.flatMap { form.problems[$0] ?? [] }
            if ownFields.contains(form.focus), form.generator == nil, problems.isEmpty,
               let hint = fieldHint(form.focus, form: form) {
                rows.append(.hint(hint))
            }
            rows += problems.map(FormRow.problem)
            if ownFields.contains(form.focus) { focused = start...(rows.count - 1) }
        }
        if !form.editsFields {
            rows += [.blank, .note("A kind from a newer version (“\(TerminalText.line(form.kindName))”): its fields stay as they are.")]
        }
        if let awaiting = state.awaiting, awaiting.kind == .save {
            // An Esc typed meanwhile acts once saved: say so, or it looks ignored.
            rows += [.blank, .saving(awaiting.keys.contains(.escape) ? "Saving… then back (Esc)" : "Saving…")]
        }
        return (rows, focused)
    }

    static func drawForm(_ state: ScreenState, form: ItemForm, body: Body, into grid: inout Grid) {
        let x = 2
        let labelWidth = formLabelWidth(for: form)
        let valueX = x + labelWidth
        let valueWidth = body.width - valueX - 2
        let (rows, focused) = formRows(state, form: form)
        let top = body.top + 1
        let room = max(1, body.bottom - top)
        // Scrolled so the focused field, its hint and its problems show (and the form's own problems
        // while nothing below them is focused).
        var start = 0
        if focused.upperBound >= room { start = min(focused.lowerBound, focused.upperBound - room + 1) }
        for (offset, row) in rows.dropFirst(start).prefix(room).enumerated() {
            let y = top + offset
            switch row {
            case .formProblem(let problem):
                grid.write("✗ " + problem, x: x, y: y, style: .error, maxWidth: body.width - x - 1)
            case .blank:
                break
            case .note(let text):
                grid.write(text, x: x, y: y, style: .dimmed, maxWidth: body.width - x - 1)
            case .saving(let text):
                grid.write(text, x: x, y: y, style: .accent)
            case .hint(let text):
                grid.write(text, x: valueX, y: y, style: .dimmed, maxWidth: valueWidth)
            case .problem(let problem):
                grid.write("✗ " + problem, x: valueX, y: y, style: .error, maxWidth: valueWidth)
            case .field(let field):
                drawFormField(field, form: form, state: state, x: x, labelWidth: labelWidth, valueWidth: valueWidth, y: y,
                              into: &grid)
            }
        }
        if start > 0 { grid.write("↑ more", x: body.width - 8, y: body.top, style: .dimmed) }
        if rows.count > start + room { grid.write("↓ more", x: body.width - 8, y: body.bottom - 1, style: .dimmed) }
        if let generator = form.generator { drawGenerator(generator, body: body, into: &grid) }
    }

    /// One field's row: its label (a custom field's editable one), its value, a custom field's type.
    static func drawFormField(_ field: ItemForm.Field, form: ItemForm, state: ScreenState, x: Int, labelWidth: Int,
                              valueWidth: Int, y: Int, into grid: inout Grid) {
        let valueX = x + labelWidth
        let showsCursor = form.generator == nil && state.overlay == nil
        func drawText(_ field: ItemForm.Field, x: Int, width: Int) {
            guard let text = form.texts[field] else { return }
            let isFocused = form.focus == field && form.generator == nil
            let style = isFocused ? Style(isUnderlined: true) : Style.plain
            grid.fill(x: x, y: y, width: width, style: style)
            let shown = fieldText(text, isMasked: form.isSecret(field) && !form.isRevealed)
            // Only the focused field keeps a column for its cursor and scrolls to it: an unfocused
            // one shows from its start, or a label as wide as its column ("Recovery code" in 13)
            // lost its first letter to a cursor that was not there.
            let (visible, cursorColumn) = scrolled(shown, cursor: isFocused ? text.cursor : 0, width: width)
            grid.write(visible, x: x, y: y, style: style, maxWidth: width)
            if isFocused, showsCursor { grid.cursor = Grid.Position(x: x + cursorColumn, y: y) }
        }
        switch field {
        case .customLabel(let id):
            drawText(.customLabel(id), x: x, width: labelWidth - 1)
            let type = form.custom.first { $0.id == id }?.type ?? ""
            drawText(.customValue(id), x: valueX, width: valueWidth - formTypeWidth - 1)
            grid.write(TextLayout.truncated(TerminalText.line(type), to: formTypeWidth), x: valueX + valueWidth - formTypeWidth,
                       y: y, style: .dimmed)
        case _ where form.isCheckbox(field):
            let isFocused = form.focus == field && form.generator == nil
            grid.write(TextLayout.truncated(form.label(field), to: labelWidth - 1), x: x, y: y, style: isFocused ? .bold : .dimmed)
            let mark = form.isOn(field) ? (field == .disabled ? "[x] yes, hide it from use" : "[x] yes") : "[ ] no"
            grid.write(mark, x: valueX, y: y, style: isFocused ? .underlined : .plain)
            if isFocused, showsCursor { grid.cursor = Grid.Position(x: valueX + 1, y: y) }
        default:
            let isFocused = form.focus == field && form.generator == nil
            grid.write(TextLayout.truncated(form.label(field), to: labelWidth - 1), x: x, y: y,
                       style: isFocused ? .bold : .dimmed)
            drawText(field, x: valueX, width: valueWidth)
        }
    }

    /// What a field shows: a masked one keeps one dot per character so the cursor lines up; a
    /// character that could drive the terminal (an item's text may come from another device)
    /// shows as one mark, so the cursor lines up too.
    static func fieldText(_ text: TextField, isMasked: Bool) -> [Character] {
        if isMasked { return Array(repeating: "•", count: text.characters.count) }
        return text.characters.map { character in
            switch character {
            case "\n", "\r\n": return "↵"
            case "\t": return " "
            default: return character.unicodeScalars.contains(where: TerminalText.isUnsafe) ? "\u{FFFD}" : character
            }
        }
    }

    /// The part of a field that fits `width` columns with the cursor in view, and the cursor's column.
    static func scrolled(_ characters: [Character], cursor: Int, width: Int) -> (String, Int) {
        var start = 0
        func columns(_ range: Range<Int>) -> Int { characters[range].reduce(0) { $0 + DisplayWidth.of($1) } }
        // Keep one column free for the cursor after the last character.
        while start < cursor, columns(start..<cursor) > width - 1 { start += 1 }
        var visible = ""
        var used = 0
        for character in characters[start...] {
            let width1 = DisplayWidth.of(character)
            if used + width1 > width { break }
            visible.append(character)
            used += width1
        }
        return (visible, columns(start..<cursor))
    }

    /// The line under the focused field (unless a problem is shown there).
    static func fieldHint(_ field: ItemForm.Field, form: ItemForm) -> String? {
        let reveal = form.isRevealed ? "^R hides it" : "^R shows it"
        switch field {
        // The hint line has no room left for ^K: a new item's title says it, where `n` puts the cursor.
        case .title where form.isNew: return "^K: another kind than \(form.kind?.label.lowercased() ?? "this")"
        case .password: return "^G generates one · " + reveal
        case .totp: return "A base32 secret or an otpauth://totp/ URI (\(reveal))"
        case .kind(let name):
            switch form.kind?.field(name)?.format {
            case .flag?: return "Space toggles"
            case .month?: return "1 to 12"
            case .year?: return "Four digits, e.g. 2031"
            default: return form.isSecret(field) ? reveal : nil
            }
        case .origins: return "Comma-separated, e.g. https://example.com, example.org"
        case .tags: return "Comma-separated"
        case .notes: return "^J starts a new line"
        case .disabled: return "Space toggles"
        case .customLabel(let id), .customValue(let id):
            let row = form.custom.first { $0.id == id }
            let type = row.map { TerminalText.line($0.type) } ?? "text"
            var parts = ["^T type: \(type)", "^X removes", "PgUp/PgDn moves"]
            if row?.isSecret == true { parts.append(reveal) }
            if row?.type == CustomField.FieldType.hidden.rawValue, field == .customValue(id) { parts.append("^G generates") }
            return parts.joined(separator: " · ")
        default: return nil
        }
    }

    static func drawGenerator(_ generator: GeneratorState, body: Body, into grid: inout Grid) {
        let width = min(body.width - 4, 66)
        let height = 8
        let x = (body.width - width) / 2
        let y = max(body.top, body.bottom - height - 1)
        let origin = box(x: x, y: y, width: width, height: height, title: "Password generator", into: &grid)
        let settings = generator.settings
        let inner = width - 4
        var row = origin.y
        func line(_ label: String, _ value: String, style: Style = .plain) {
            grid.write(label, x: origin.x, y: row, style: .dimmed)
            grid.write(value, x: origin.x + 10, y: row, style: style, maxWidth: inner - 10)
            row += 1
        }
        switch settings.mode {
        case .characters:
            line("Mode", "characters  (w: words)")
            line("Length", "\(settings.length)  (← →)")
            let classes: [(PasswordGenerator.CharacterClasses, String)] = [
                (.lowercase, "a-z"), (.uppercase, "A-Z"), (.digits, "0-9"), (.symbols, "!#$"),
            ]
            let marks = classes.enumerated().map { index, entry in
                "\(index + 1)[\(settings.classes.contains(entry.0) ? "x" : " ")] \(entry.1)"
            }
            line("Classes", marks.joined(separator: "  "))
        case .words:
            line("Mode", "words  (w: characters)")
            line("Words", "\(settings.words)  (← →)")
            line("", "")
        }
        // zxcvbn's rating of the password shown (what an attacker would face), beside what the
        // settings draw from: the two differ only when the draw happens to look like words.
        if let preview = generator.preview {
            let strength = PassphraseStrength.estimate(preview)
            line("Strength", "\(strength.rating.rawValue), zxcvbn \(strength.bits) bits (\(settings.entropyBits) drawn)",
                 style: Style(color: strengthColor(strength.rating)))
        } else {
            line("Strength", "\(settings.entropyBits) bits drawn")
        }
        row += 1
        if let problem = generator.problem {
            line("", "✗ " + problem, style: .error)
        } else {
            line("Password", TextLayout.truncated(generator.preview ?? "…", to: inner - 10), style: .bold)
        }
    }
}
