import CofferCore
import Foundation

/// Creating, unlocking and locking the vault.
extension Update {
    static func applySession(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        switch event {
        case .vaultCreated(let summary):
            guard case .firstRun = state.page else { return [] }
            state.busy = nil
            adopt(summary, in: &state)
            state.page = .list
            keepSelectionVisible(in: &state)
            state.lastInput = now
            state.notice = Notice("Vault created. Press n to add an item.", until: now.addingTimeInterval(Notice.lifetime))
            return []
        case .vaultCreationFailed(let message):
            guard case .firstRun(var form) = state.page else { return [] }
            state.busy = nil
            form.error = message
            state.page = .firstRun(form)
            return []
        case .unlocked(let items, let summary):
            guard case .locked = state.page else { return [] }
            state.busy = nil
            state.items = items
            adopt(summary, in: &state)
            state.page = .list
            state.list.top = 0
            keepSelectionVisible(in: &state)
            state.lastInput = now
            state.unlockedAt = now
            // Unlocking is when waiting conflicts can merge: sync at once.
            return schedule(state.scheduler.handle(.unlock, now: now), in: &state, now: now)
        case .itemsOpened(let items, let isComplete):
            // A lock meanwhile ends the loading: nothing comes back.
            guard !state.isLocked else { return [] }
            state.isOpeningItems = !isComplete
            // The listing only grows, so an equal count is the list already shown (the first
            // report comes as `.unlocked` and again here): no second sort of the same items.
            if items.count != state.items.count { state.items = items }
            keepSelectionVisible(in: &state)
            return isComplete ? recheckHealth(in: &state) : []
        case .unlockFailed(let failure):
            guard case .locked(var prompt) = state.page else { return [] }
            state.busy = nil
            switch failure {
            case .wrongPassphrase:
                prompt.failedAttempts += 1
                prompt.error = "Wrong passphrase. Try again."
            case .other(let message):
                prompt.error = message
            }
            state.page = .locked(prompt)
            return []
        default:
            return []
        }
    }

    /// Drops every secret from the state: the items, what was typed, the reveal flags.
    static func lock(_ state: inout ScreenState, now: Date, reason: String?) -> [Effect] {
        guard !state.isLocked else { return [] }
        var effects: [Effect] = [.lockVault]
        // A question over the unlocked page goes with it (an invitation's is answered no), and so
        // do keys kept for a page after a save: they may be text typed into a form.
        effects += closeOverlay(in: &state)
        state.awaiting = nil
        if state.clipboard != nil {
            state.clipboard = nil
            effects.append(.clearClipboard)
        }
        let sort = state.list.sort
        state.items = []
        state.isOpeningItems = false
        state.health = nil
        state.list = ListState()
        state.list.sort = sort
        state.page = .locked(UnlockPrompt())
        state.notice = reason.map { Notice($0, until: now.addingTimeInterval(Notice.lifetime)) }
        // Repaint every cell so nothing secret survives in the terminal's buffer.
        return effects + [.redraw]
    }

    /// Fresh counts from the vault; an account set meanwhile (by `coffer account login`) turns sync on.
    static func adopt(_ summary: VaultSummary, in state: inout ScreenState) {
        state.summary = summary
        state.scheduler.hasAccount = summary.account != nil
        if let lastSync = summary.lastSync, lastSync > (state.sync.lastSync ?? .distantPast) {
            state.sync.lastSync = lastSync
        }
    }

    static func reload(_ state: inout ScreenState, items: [ScreenItem]?, summary: VaultSummary, now: Date) -> [Effect] {
        adopt(summary, in: &state)
        // Another process of this vault (a `coffer sync --unlock`) handled a lock sent after this unlock.
        if let notice = summary.remoteLock, let unlockedAt = state.unlockedAt, notice.at.date > unlockedAt {
            return lockedRemotely(notice, in: &state, now: now)
        }
        // A load that finished after a lock must not bring the items back.
        guard let items, !state.isLocked else { return [] }
        state.items = items
        if case .detail(let detail) = state.page, state.item(detail.itemID)?.isTrashed ?? true {
            let fate = state.item(detail.itemID) == nil ? "deleted" : "moved to the trash (Z)"
            state.page = .list
            state.notice = Notice("The item was \(fate) on another device.", until: now.addingTimeInterval(Notice.lifetime))
        }
        keepSelectionVisible(in: &state)
        return recheckHealth(in: &state)
    }

    // MARK: Passphrase prompts

    static func performPassphrase(_ action: Action, in state: inout ScreenState, now: Date) -> [Effect] {
        switch (action, state.page) {
        case (.submitPassphrase, .locked(var prompt)):
            guard !prompt.passphrase.isEmpty else {
                prompt.error = "Type the passphrase, then press Enter."
                state.page = .locked(prompt)
                return []
            }
            let passphrase = prompt.passphrase
            prompt.passphrase.removeAll()
            prompt.error = nil
            state.page = .locked(prompt)
            state.busy = Busy(.unlocking, since: now)
            return [.unlock(passphrase: passphrase)]
        case (.submitPassphrase, .firstRun(var form)):
            if form.focus == .passphrase {
                if form.passphrase.isEmpty {
                    form.error = "Choose a passphrase."
                } else {
                    form.focus = .repetition
                    form.error = nil
                }
                state.page = .firstRun(form)
                return []
            }
            guard form.passphrase == form.repetition else {
                form = NewVaultForm()
                form.error = "The two passphrases differ. Type them again."
                state.page = .firstRun(form)
                return []
            }
            let passphrase = form.passphrase
            state.page = .firstRun(NewVaultForm())
            state.busy = Busy(.creatingVault, since: now)
            return [.createVault(passphrase: passphrase)]
        case (.switchPassphraseField, .firstRun(var form)):
            form.focus = form.focus == .passphrase ? .repetition : .passphrase
            state.page = .firstRun(form)
            return []
        case (.clearOrQuit, .locked(var prompt)):
            guard prompt.passphrase.isEmpty else {
                prompt.passphrase.removeAll()
                state.page = .locked(prompt)
                return []
            }
            return quit(&state, exitCode: 0)
        case (.clearOrQuit, .firstRun(let form)):
            guard form.passphrase.isEmpty, form.repetition.isEmpty else {
                state.page = .firstRun(NewVaultForm())
                return []
            }
            return quit(&state, exitCode: 0)
        default:
            return []
        }
    }

    static func typePassphrase(_ key: Key, in state: inout ScreenState) -> [Effect] {
        // What was typed while the KDF runs would be lost when it ends: ignore it.
        guard state.busy == nil else { return [] }
        func edit(_ secret: inout SecretText) {
            switch key {
            case .character(let character): secret.append(character)
            case .backspace: secret.removeLast()
            case .control("u"): secret.removeAll()
            default: break
            }
        }
        switch state.page {
        case .locked(var prompt):
            edit(&prompt.passphrase)
            prompt.error = nil
            state.page = .locked(prompt)
        case .firstRun(var form):
            if form.focus == .passphrase { edit(&form.passphrase) } else { edit(&form.repetition) }
            form.error = nil
            state.page = .firstRun(form)
        default:
            break
        }
        return []
    }
}
