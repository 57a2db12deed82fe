import CofferCore
import Foundation

/// The two locked pages: creating a vault, and unlocking one.
extension Render {
    static func drawFirstRun(_ state: ScreenState, form: NewVaultForm, body: Body, now: Date, into grid: inout Grid) {
        let x = 3
        var y = body.top + 1
        grid.write("Welcome to Coffer.", x: x, y: y, style: .bold)
        y += 2
        let intro = "There is no vault at \(state.vaultPath) yet. Choose a passphrase to create one: it "
            + "encrypts everything, and nobody can recover it for you."
        for line in TextLayout.wrapped(intro, to: body.width - 2 * x) {
            grid.write(line, x: x, y: y)
            y += 1
        }
        y += 1
        let labelWidth = 13
        grid.write("Passphrase", x: x, y: y, style: form.focus == .passphrase ? .bold : .plain)
        let passphraseRow = y
        y += 1
        grid.write("Again", x: x, y: y, style: form.focus == .repetition ? .bold : .plain)
        let repetitionRow = y
        y += 2
        let strength = PassphraseStrength.estimate(form.passphrase.revealed)
        grid.write("Strength", x: x, y: y)
        if form.passphrase.isEmpty {
            grid.write("(type a passphrase; nothing you type is shown)", x: x + labelWidth, y: y, style: .dimmed)
        } else {
            let meter = strengthMeter(strength.rating)
            let written = grid.write(meter, x: x + labelWidth, y: y, style: Style(color: strengthColor(strength.rating)))
            grid.write(" \(strength.rating.rawValue), about \(strength.bits) bits (zxcvbn)", x: x + labelWidth + written, y: y)
            // zxcvbn's findings, by kind only: the passphrase itself is never on the screen.
            if let feedback = strength.feedback {
                for line in TextLayout.wrapped(feedback, to: body.width - x - labelWidth - 1).prefix(2) {
                    y += 1
                    grid.write(line, x: x + labelWidth, y: y, style: .dimmed)
                }
            }
        }
        y += 2
        if let busy = state.busy {
            grid.write("\(spinner(since: busy.since, now: now)) \(busy.label)", x: x, y: y, style: .accent)
        } else if let error = form.error {
            grid.write("✗ " + error, x: x, y: y, style: .error)
        } else if form.focus == .repetition {
            grid.write("Type the same passphrase again, then Enter.", x: x, y: y, style: .dimmed)
        }
        if state.busy == nil, state.overlay == nil {
            grid.cursor = Grid.Position(x: x + labelWidth, y: form.focus == .passphrase ? passphraseRow : repetitionRow)
        }
    }

    static func strengthMeter(_ rating: PassphraseStrength) -> String {
        let filled = rating.rank + 1
        return String(repeating: "■", count: filled) + String(repeating: "□", count: PassphraseStrength.allCases.count - filled)
    }

    static func strengthColor(_ rating: PassphraseStrength) -> Style.Color {
        switch rating {
        case .veryWeak, .weak: return .red
        case .fair: return .yellow
        case .strong, .veryStrong: return .green
        }
    }

    static func drawLocked(_ state: ScreenState, prompt: UnlockPrompt, body: Body, now: Date, into grid: inout Grid) {
        let x = 3
        var y = body.top + 1
        grid.write("🔒 \(state.vaultTitle) is locked", x: x, y: y, style: .bold)
        if let remark = prompt.remark { grid.write(remark, x: x, y: y + 1, style: .warning, maxWidth: body.width - x - 1) }
        y += 2
        let summary = state.summary
        var rows: [(String, String, Style)] = [
            ("Items", summary.isCounted ? "\(summary.items)" : "counting…", .plain),
            ("Pending changes", !summary.isCounted ? "counting…" : summary.pending == 0 ? "none" : "\(summary.pending) not yet on the server", .plain),
        ]
        if !summary.isCounted {
            rows.append(("Conflicts", "counting…", .plain))
        } else if summary.conflicts > 0 {
            rows.append(("⚠ Conflicts", "\(summary.conflicts) waiting for unlock to merge", .warning))
        } else {
            rows.append(("Conflicts", "none", .plain))
        }
        if summary.unreviewed > 0 {
            rows.append(("⚑ To review", "\(Format.count(summary.unreviewed, "merged item")) (press v after unlocking)", .plain))
        }
        rows.append(("Last sync", Format.age(of: state.sync.lastSync, now: now), .plain))
        if let error = state.sync.lastError {
            let message = state.sync.lastMessage.map { "\(error.rawValue): \($0)" } ?? error.rawValue
            rows.append(("Last error", message, error == .syncLocked ? .warning : .error))
        }
        rows.append(("Sync account", summary.account ?? "none", .plain))
        if let share = summary.share {
            rows.append(("Members", share.problem == nil ? "\(share.members.count) (F2 lists them)" : "the roster does not verify (F2)",
                         share.problem == nil ? .plain : .error))
        }
        for (label, value, style) in rows {
            grid.write(label, x: x, y: y)
            grid.write(value, x: x + 18, y: y, style: style, maxWidth: body.width - x - 19)
            y += 1
        }
        y += 1
        grid.write("Passphrase:", x: x, y: y, style: .bold)
        let promptRow = y
        y += 2
        if let busy = state.busy {
            grid.write("\(spinner(since: busy.since, now: now)) \(busy.label)", x: x, y: y, style: .accent)
        } else if let error = prompt.error {
            grid.write("✗ " + error, x: x, y: y, style: .error)
        } else {
            grid.write("Type your passphrase (it is not shown), then Enter.", x: x, y: y, style: .dimmed)
        }
        if state.busy == nil, state.overlay == nil { grid.cursor = Grid.Position(x: x + 12, y: promptRow) }
    }
}
