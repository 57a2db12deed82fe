import Foundation

/// The vault picker: opening it (locked or unlocked), reading the vaults again while it shows,
/// and switching the screen to another vault (architecture §5, §17).
///
/// From a form (F3), a changed one asks first, as Esc does: no switch loses an edit unasked.
extension Update {
    static func performVaults(_ action: Action, in state: inout ScreenState, now: Date) -> [Effect] {
        switch action {
        case .openVaults:
            if case .form(let form) = state.page, form.hasChanges {
                state.overlay = .confirm(Confirmation(question: "Discard your changes and open the vaults?",
                                                      action: .discardChangesForVaults, askedOn: state.page.identity))
                return []
            }
            return openVaults(in: &state, now: now)
        case .switchVault:
            guard case .vaults(let page) = state.page, let choice = page.current else { return [] }
            if choice.isCurrent {
                state.page = page.isVaultLocked ? .locked(UnlockPrompt()) : .list
                return []
            }
            state.awaiting = AwaitedWork(.vaultSwitch)
            return [.switchVault(path: choice.path)]
        default:
            return []
        }
    }

    /// The picker. Opened locked, the page keeps the vault locked; a passphrase half typed is dropped.
    static func openVaults(in state: inout ScreenState, now: Date) -> [Effect] {
        state.page = .vaults(VaultsState(isVaultLocked: state.isLocked, requestedAt: now))
        return [.loadVaults]
    }

    static func vaultsLoaded(_ choices: [VaultChoice], in state: inout ScreenState) -> [Effect] {
        guard case .vaults(var page) = state.page else { return [] }
        // The cursor stays on the vault it was on, wherever the new listing puts it.
        let onPath = page.current?.path ?? choices.first(where: \.isCurrent)?.path
        page.choices = choices
        page.cursor = choices.firstIndex { $0.path == onPath } ?? min(page.cursor, max(0, choices.count - 1))
        state.page = .vaults(page)
        return []
    }

    /// While the picker shows, every `VaultsState.refreshSeconds`: the vaults again (a command in
    /// another process may have written to any of them).
    static func refreshVaults(in state: inout ScreenState, now: Date) -> [Effect] {
        guard case .vaults(var page) = state.page, state.awaiting == nil,
              now.timeIntervalSince(page.requestedAt) >= VaultsState.refreshSeconds else { return [] }
        page.requestedAt = now
        state.page = .vaults(page)
        return [.loadVaults]
    }

    /// Another vault is on the screen: everything of the one before goes (its items, its page,
    /// its sync state, the keys typed during the switch), as after a fresh start on the new one.
    /// `items` is nil when it opened locked (no kept keys open it): its passphrase prompt shows.
    static func vaultSwitched(to path: String, summary: VaultSummary, items: [ScreenItem]?, in state: inout ScreenState,
                              now: Date) -> [Effect] {
        // The runtime has the new vault either way; a lock during the switch dropped the wait, and
        // then the new vault is shown locked (and locked again, had the kept keys opened it).
        let isStillWanted = endAwaiting(.vaultSwitch, in: &state) != nil
        var next = ScreenState(vaultPath: path, summary: summary, settings: state.settings, size: state.size, now: now)
        next.list.sort = state.list.sort
        next.clipboard = state.clipboard
        state = next
        state.notice = Notice("Opened \(state.vaultTitle).", until: now.addingTimeInterval(Notice.lifetime))
        guard let items, isStillWanted else {
            let relock: [Effect] = items == nil ? [] : [.lockVault]
            return relock + schedule(state.scheduler.handle(.start, now: now), in: &state, now: now) + [.redraw]
        }
        state.page = .list
        state.items = items
        keepSelectionVisible(in: &state)
        state.unlockedAt = now
        // The reload brings the files that have arrived; unlocking is when waiting conflicts merge.
        return [.reload, .redraw] + schedule(state.scheduler.handle(.unlock, now: now), in: &state, now: now)
    }

    static func vaultSwitchFailed(_ message: String, in state: inout ScreenState, now: Date) -> [Effect] {
        guard endAwaiting(.vaultSwitch, in: &state) != nil else { return [] }
        state.notice = Notice(message, isError: true, until: now.addingTimeInterval(Notice.lifetime))
        return []
    }
}
