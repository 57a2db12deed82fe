import CofferCore
import Foundation

/// The vault picker: one row per vault (● the one on the screen), its item count and whether it
/// is open, opens without the passphrase (this screen's unlock kept its keys) or is locked.
/// Shared vaults' names are someone else's text and go through `TerminalText` (`VaultChoice.title`).
extension Render {
    static func drawVaults(_ state: ScreenState, page: VaultsState, body: Body, into grid: inout Grid) {
        let header = Style(isBold: true, isUnderlined: true)
        let columns = (name: 4, items: body.width - 38, access: body.width - 28)
        grid.fill(y: body.top, style: header)
        for (title, x) in zip(["Vault", "Items", "Lock"], [columns.name, columns.items, columns.access]) {
            grid.write(title, x: x, y: body.top, style: header)
        }
        let foot = state.awaiting?.kind == .vaultSwitch
            ? "Opening…" : "One unlock opens every vault of the same passphrase; L locks them all."
        grid.write(foot, x: 2, y: body.bottom - 1, style: .dimmed, maxWidth: body.width - 4)
        guard let choices = page.choices else {
            grid.write("Reading the vaults…", x: 2, y: body.top + 2, style: .dimmed)
            return
        }
        let rows = max(1, body.bottom - body.top - 3)
        let cursor = min(page.cursor, max(0, choices.count - 1))
        let first = max(0, cursor - rows + 1)
        for (index, choice) in choices.enumerated().dropFirst(first).prefix(rows) {
            let y = body.top + 1 + index - first
            let isCursor = index == cursor
            let style = isCursor ? Style.reversed : .plain
            if isCursor { grid.fill(y: y, style: style) }
            grid.write(isCursor ? "▸" : " ", x: 1, y: y, style: style)
            grid.write(choice.isCurrent ? "●" : " ", x: 2, y: y, style: style)
            grid.write(choice.title, x: columns.name, y: y, style: style, maxWidth: columns.items - columns.name - 1)
            if let problem = choice.problem {
                grid.write(TerminalText.message(problem), x: columns.items, y: y, style: isCursor ? style : .error,
                           maxWidth: body.width - columns.items - 1)
                continue
            }
            grid.write(choice.items.map { String($0) } ?? "?", x: columns.items, y: y, style: style)
            grid.write(accessText(choice, state: state), x: columns.access, y: y, style: style,
                       maxWidth: body.width - columns.access - 1)
        }
    }

    /// The vault on the screen is as the screen is; another is locked, or opens with the keys kept.
    private static func accessText(_ choice: VaultChoice, state: ScreenState) -> String {
        if choice.isCurrent { return state.isLocked ? "🔒 locked" : "🔓 open" }
        switch choice.access {
        case .open: return "🔓 open"
        case .opensWithoutAsking: return "🔓 opens without asking"
        case .locked: return "🔒 locked"
        }
    }
}
