import CofferCore
import Foundation

/// The Health page: one row per item whose password is weak, reused or old, worst first.
extension Render {
    static func drawHealth(_ state: ScreenState, page: HealthState, body: Body, into grid: inout Grid) {
        let header = Style(isBold: true, isUnderlined: true)
        grid.fill(y: body.top, style: header)
        let problemsX = max(24, body.width * 2 / 5)
        grid.write("Item", x: 2, y: body.top, style: header)
        grid.write("Password", x: problemsX, y: body.top, style: header)
        guard let findings = state.health else {
            grid.write("Checking every password…", x: 2, y: body.top + 2, style: .dimmed)
            return
        }
        let footer = page.isChecking ? "Checking again…"
            : "\(Format.count(findings.checkedCount, "password")) checked · weak: zxcvbn under "
                + "\(PassphraseStrength.weakBelowBits) bits · old: unchanged for a year · "
                + "coffer health --breached FILE checks a breach list"
        grid.write(footer, x: 2, y: body.bottom - 1, style: .dimmed, maxWidth: body.width - 4)
        guard !findings.rows.isEmpty else {
            grid.write("No weak, reused or old password.", x: 2, y: body.top + 2, style: .accent)
            return
        }
        drawCursorRows(count: findings.rows.count, cursor: page.cursor, body: body, into: &grid) { index, y, style, isCursor, grid in
            let row = findings.rows[index]
            grid.write(TerminalText.line(row.title), x: 2, y: y, style: style, maxWidth: problemsX - 3)
            grid.write(HealthFindings.describe(row.problems, in: state.settings.timeZone), x: problemsX, y: y,
                       style: isCursor ? style : .warning, maxWidth: body.width - problemsX - 1)
        }
    }
}
