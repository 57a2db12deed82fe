import CofferCore
import Foundation

/// The Members page of a shared vault: opening it (locked or unlocked), moving, going back,
/// showing the command that invites a person, and revoking a member (`X`, asked first). The
/// members themselves come with every reload (`VaultSummary.share`).
extension Update {
    static func performMembers(_ action: Action, in state: inout ScreenState) -> [Effect] {
        switch action {
        case .openMembers:
            // Opened locked, the page keeps the vault locked; a passphrase half typed is dropped.
            state.page = .members(MembersState(isVaultLocked: state.isLocked))
        case .showInviteCommand:
            guard case .members(var page) = state.page else { return [] }
            page.showsInvitation = true
            state.page = .members(page)
        case .inviteMember:
            return inviteMember(in: &state)
        case .revokeMember:
            guard case .members(let page) = state.page, let members = state.summary.share?.members, !members.isEmpty else { break }
            let member = members[min(page.cursor, members.count - 1)]
            let name = TerminalText.name(member.name)
            state.overlay = .confirm(Confirmation(
                question: "Revoke \u{201C}\(name)\u{201D} (account \(TerminalText.name(member.account)))? The server refuses them from then on.",
                action: .revokeMember(id: member.id, name: member.name), askedOn: .members))
        default:
            break
        }
        return []
    }

    /// The yes to `X`'s question: the revocation runs; the page says so until it ends.
    static func confirmedRevocation(id: String, name: String, in state: inout ScreenState) -> [Effect] {
        guard case .members(var page) = state.page, !state.isLocked else { return [] }
        page.revoking = name
        state.page = .members(page)
        return [.revokeMember(id: id, name: name)]
    }

    static func applyMembers(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        if case .members(var page) = state.page, event.endsRevocation {
            page.revoking = nil
            state.page = .members(page)
        }
        switch event {
        case .memberInvitationOpened, .memberClaimed, .memberInvitationFinished:
            return applyMemberInvitation(event, to: &state, now: now)
        case .memberRevoked(let message):
            state.notice = Notice(message, until: now.addingTimeInterval(Notice.lifetime))
            // The roster it stored shows with the reload; the sync fetches the new epoch's key.
            return [.reload] + schedule(state.scheduler.handle(.manual, now: now), in: &state, now: now)
        case .sharedKeysRotated(let vault, let epoch):
            state.notice = Notice("Epoch \(epoch) of \u{201C}\(TerminalText.name(vault))\u{201D} begins: someone left, so its keys are replaced.",
                                  until: now.addingTimeInterval(Notice.lifetime))
            return schedule(state.scheduler.handle(.manual, now: now), in: &state, now: now)
        case .memberRevokeFailed(let message):
            state.notice = Notice(message, isError: true, until: now.addingTimeInterval(Notice.lifetime))
            return [.reload]
        default:
            return []
        }
    }

    /// Esc on the Members page: back to the passphrase prompt it was opened from, or the list.
    static func leaveMembers(_ page: MembersState, in state: inout ScreenState) {
        state.page = page.isVaultLocked ? .locked(UnlockPrompt()) : .list
    }
}

private extension ScreenEvent {
    var endsRevocation: Bool {
        switch self {
        case .memberRevoked, .memberRevokeFailed: return true
        default: return false
        }
    }
}
