import Foundation

/// The Members page of a shared vault: opening it (locked or unlocked), moving, going back, and
/// showing the command that invites a person. The members themselves come with every reload
/// (`VaultSummary.share`), so nothing here asks the runtime for work.
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
        default:
            break
        }
        return []
    }

    /// Esc on the Members page: back to the passphrase prompt it was opened from, or the list.
    static func leaveMembers(_ page: MembersState, in state: inout ScreenState) {
        state.page = page.isVaultLocked ? .locked(UnlockPrompt()) : .list
    }
}
