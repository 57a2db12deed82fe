import CofferCore
import CofferSync
import Foundation

/// The Members page of a shared vault: one row per member (★ this person), their account, who
/// added them and the roster entry that did, as the roster this device verified last says; below,
/// an invitation pending and a revocation running. Every name and account is someone else's text
/// and goes through `TerminalText`.
extension Render {
    static func drawMembers(_ state: ScreenState, page: MembersState, body: Body, into grid: inout Grid) {
        guard let share = state.summary.share else {
            grid.write("This is a personal vault: it has no members.", x: 2, y: body.top + 1, style: .dimmed)
            return
        }
        let entries = share.entries == 1 ? "1 entry" : "\(share.entries) entries"
        var foot = share.problem == nil ? ["The roster as this device last verified it: \(entries), epoch \(share.epoch)."] : []
        if let until = share.invitationWaitsUntil {
            let time = Format.clockTime(until, in: state.settings.timeZone)
            foot.append("Pending: an invitation (`share invite`) waits for its person until \(time).")
        }
        if let name = page.revoking { foot.append("Revoking \u{201C}\(TerminalText.name(name))\u{201D}…") }
        if let invitation = page.invitation { foot = invitationStage(invitation, state: state) + [""] + foot }
        if page.showsInvitation { foot = invitationLines(share, state: state) + [""] + foot }
        let bottom = body.bottom - foot.count - 1
        drawFoot(foot, showsInvitation: page.showsInvitation || page.invitation != nil, bottom: body.bottom, body: body, into: &grid)

        let columns = memberColumns(width: body.width)
        let header = Style(isBold: true, isUnderlined: true)
        grid.fill(y: body.top, style: header)
        for (title, x) in zip(["Member", "Account", "Added by", "Entry"], [columns.name, columns.account, columns.addedBy, columns.entry]) {
            grid.write(title, x: x, y: body.top, style: header)
        }
        if let problem = share.problem {
            for (offset, line) in TextLayout.wrapped(TerminalText.message(problem), to: body.width - 4).enumerated()
            where body.top + 2 + offset < bottom {
                grid.write(line, x: 2, y: body.top + 2 + offset, style: .error)
            }
            return
        }
        guard !share.members.isEmpty else {
            grid.write("Nobody is left in this vault's roster.", x: 2, y: body.top + 2, style: .dimmed)
            return
        }
        let rows = max(1, bottom - body.top - 1)
        let cursor = min(page.cursor, share.members.count - 1)
        let first = max(0, cursor - rows + 1)
        for (index, member) in share.members.enumerated().dropFirst(first).prefix(rows) {
            let y = body.top + 1 + index - first
            let isCursor = index == cursor
            let style = isCursor ? Style.reversed : .plain
            if isCursor { grid.fill(y: y, style: style) }
            grid.write(isCursor ? "▸" : " ", x: 1, y: y, style: style)
            grid.write(member.isYou ? "★" : " ", x: 2, y: y, style: style)
            func cell(_ text: String, x: Int, to end: Int) {
                grid.write(TextLayout.truncated(text, to: max(1, end - x - 1)), x: x, y: y, style: style, maxWidth: end - x - 1)
            }
            cell(TerminalText.name(member.name), x: columns.name, to: columns.account)
            cell(TerminalText.name(member.account), x: columns.account, to: columns.addedBy)
            let addedBy = member.createdTheVault
                ? "created the vault" : TerminalText.name(member.addedByName ?? String(member.addedBy.prefix(8)))
            cell(addedBy, x: columns.addedBy, to: columns.entry)
            cell("\(member.addedAt)", x: columns.entry, to: body.width)
        }
    }

    /// Where each column starts: the name gets the most room, the entry's position the least.
    private static func memberColumns(width: Int) -> (name: Int, account: Int, addedBy: Int, entry: Int) {
        let entry = width - 7
        let room = entry - 5
        let account = 4 + room * 4 / 10
        let addedBy = account + room * 3 / 10
        return (4, account, addedBy, entry)
    }

    /// `i`'s answer: the command to run in another terminal (the exchange of codes is the
    /// command line's, not the screen's). `--vault NAME` when the file is the name's, else its path.
    private static func invitationLines(_ share: SharedVaultSummary, state: ScreenState) -> [String] {
        let byName = SharedVaultName.isValid(share.name) && state.vaultName == "\(share.name).db"
        let vault = byName ? share.name : TerminalText.line(state.vaultPath)
        return ["To invite a person, run:  coffer --vault \(vault) share invite",
                "It prints a one-time code they type in:  coffer share join --code CODE"]
    }

    /// `I`'s invitation at the foot of the page: the code to give the person while it waits.
    private static func invitationStage(_ invitation: DeviceInvitation, state: ScreenState) -> [String] {
        switch invitation.stage {
        case .opening: return ["Opening an invitation on the sync server…"]
        case .waiting(let code, let expires, _):
            let time = Format.clockTime(expires, in: state.settings.timeZone)
            return ["Invitation code: \(code)   (valid until \(time), once)",
                    "They run on their vault:  coffer share join --code \(code)"]
        case .answering: return ["Answering the invitation…"]
        }
    }

    private static func drawFoot(_ lines: [String], showsInvitation: Bool, bottom: Int, body: Body, into grid: inout Grid) {
        for (offset, line) in lines.enumerated() {
            let y = bottom - lines.count + offset
            guard y > body.top else { continue }
            let isCommand = showsInvitation && offset == 0
            grid.write(line, x: 2, y: y, style: isCommand ? .bold : .dimmed, maxWidth: body.width - 4)
        }
    }
}
