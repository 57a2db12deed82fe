import CofferCore

/// The item form: one field per row, its problems under it, the generator in a box.
extension Render {
    static let formLabelWidth = 11

    static func drawForm(_ state: ScreenState, form: ItemForm, body: Body, into grid: inout Grid) {
        let x = 2
        let valueX = x + formLabelWidth
        let valueWidth = body.width - valueX - 2
        var y = body.top + 1
        for problem in form.formProblems {
            grid.write("✗ " + problem, x: x, y: y, style: .error)
            y += 1
        }
        if !form.formProblems.isEmpty { y += 1 }
        for field in ItemForm.Field.allCases where y < body.bottom {
            let isFocused = form.focus == field && form.generator == nil
            grid.write(field.label, x: x, y: y, style: isFocused ? .bold : .dimmed)
            if field == .disabled {
                let mark = form.isDisabled ? "[x] yes, hide it from use" : "[ ] no"
                grid.write(mark, x: valueX, y: y, style: isFocused ? .underlined : .plain)
                if isFocused, state.overlay == nil { grid.cursor = Grid.Position(x: valueX + 1, y: y) }
            } else if let text = form.texts[field] {
                let shown = fieldText(text, field: field, isRevealed: form.isPasswordRevealed)
                let fieldStyle = isFocused ? Style(isUnderlined: true) : Style.plain
                grid.fill(x: valueX, y: y, width: valueWidth, style: fieldStyle)
                let (visible, cursorColumn) = scrolled(shown, cursor: text.cursor, width: valueWidth)
                grid.write(visible, x: valueX, y: y, style: fieldStyle, maxWidth: valueWidth)
                if isFocused, state.overlay == nil { grid.cursor = Grid.Position(x: valueX + cursorColumn, y: y) }
            }
            if let hint = fieldHint(field, form: form), form.problems[field] == nil, isFocused {
                grid.write(hint, x: valueX, y: y + 1, style: .dimmed, maxWidth: valueWidth)
                y += 1
            }
            y += 1
            for problem in form.problems[field] ?? [] where y < body.bottom {
                grid.write("✗ " + problem, x: valueX, y: y, style: .error, maxWidth: valueWidth)
                y += 1
            }
        }
        if case .save(let closesForm)? = state.awaiting?.kind, y + 1 < body.bottom {
            grid.write(closesForm ? "Saving… then closing" : "Saving…", x: x, y: y + 1, style: .accent)
        }
        if let generator = form.generator { drawGenerator(generator, body: body, into: &grid) }
    }

    /// What a field shows: a masked password keeps one dot per character so the cursor lines up.
    static func fieldText(_ text: TextField, field: ItemForm.Field, isRevealed: Bool) -> [Character] {
        if field == .password || field == .totp, !isRevealed { return Array(repeating: "•", count: text.characters.count) }
        return text.characters.map { $0 == "\n" || $0 == "\r\n" ? "↵" : ($0 == "\t" ? " " : $0) }
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

    static func fieldHint(_ field: ItemForm.Field, form: ItemForm) -> String? {
        switch field {
        case .password: return form.isPasswordRevealed ? "^G generates one · ^R hides it" : "^G generates one · ^R shows it"
        case .totp: return "A base32 secret or an otpauth://totp/ URI (^R shows it)"
        case .origins: return "Comma-separated, e.g. https://example.com, example.org"
        case .tags: return "Comma-separated"
        case .notes: return "^J starts a new line"
        case .disabled: return "Space toggles"
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
