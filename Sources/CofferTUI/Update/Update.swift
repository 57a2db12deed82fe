import CofferCore
import CofferSync
import Foundation

/// The screen's logic: a pure function from a state and an event to a new state and the work to do.
///
/// No clock, no randomness, no I/O: `now` is a parameter and anything else is an `Effect` the
/// runtime performs, posting the outcome back as an event. Tests drive it with a fake clock.
///
/// After every event a question whose page has gone is closed (`Confirmation.stands(in:)`).
enum Update {
    static func apply(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        let effects = applyEvent(event, to: &state, now: now)
        let closed = closeStaleQuestion(in: &state)
        return effects + closed + settleHeldClaim(in: &state, now: now)
    }

    private static func applyEvent(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        switch event {
        case .started:
            guard state.hasVault else { return [] }
            return schedule(state.scheduler.handle(.start, now: now), in: &state, now: now)
        case .key(let key):
            state.lastInput = now
            return press(key, in: &state, now: now)
        case .resized(let size):
            state.size = size
            keepSelectionVisible(in: &state)
            return [.redraw]
        case .tick:
            return tick(&state, now: now)
        case .terminationRequested(let code):
            return quit(&state, exitCode: code)
        case .vaultCreated, .vaultCreationFailed, .unlocked, .itemsOpened, .unlockFailed:
            return applySession(event, to: &state, now: now)
        case .vaultChangedElsewhere:
            return state.hasVault ? [.reload] : []
        case .reloaded(let items, let summary, let writesSeen):
            // A listing read before this screen's last save or deletion would undo it on the
            // screen (a saved item gone, its page closed as "deleted on another device"): only its
            // counts are taken; the reload that save asked for brings the items.
            let isStale = writesSeen.map { $0 < state.localWrites } ?? false
            return reload(&state, items: isStale ? nil : items, summary: summary, now: now)
        case .itemSaved, .itemSaveFailed, .passwordGenerated:
            return applyForm(event, to: &state, now: now)
        case .itemDeleted(let id, let title):
            return itemDeleted(&state, id: id, title: title, now: now)
        case .itemDeleteFailed(let id, let message):
            state.notice = Notice(message, isError: true, until: now.addingTimeInterval(Notice.lifetime))
            _ = endAwaiting(.deletion(itemID: id), in: &state)  // the keys were for the list after it
            return []
        case .itemRestored, .trashEmptied, .trashActionFailed:
            return trashChanged(event, in: &state, now: now)
        case .arrivedFilesRead, .fileSaved, .fileExists, .filesChanged, .fileActionFailed:
            return applyFiles(event, to: &state, now: now)
        case .operationFailed(let message):
            // A save ends with `.itemSaved` or `.itemSaveFailed`, never here: this failure may be
            // any other work's (a reload), and must not end an awaited save.
            state.notice = Notice(message, isError: true, until: now.addingTimeInterval(Notice.lifetime))
            if case .review(var review) = state.page {
                review.saving.removeAll()
                state.page = .review(review)
            }
            return []
        case .devicesLoaded, .deviceActionFinished, .invitationOpened, .invitationClaimed, .invitationFinished:
            return applyDevices(event, to: &state, now: now)
        case .reviewsLoaded, .reviewsLoadFailed, .reviewResolved:
            return applyReview(event, to: &state, now: now)
        case .healthChecked(let findings):
            return healthChecked(findings, in: &state)
        case .memberRevoked, .memberRevokeFailed, .sharedKeysRotated, .memberInvitationOpened, .memberClaimed, .memberInvitationFinished:
            return applyMembers(event, to: &state, now: now)
        case .vaultsLoaded(let choices):
            return vaultsLoaded(choices, in: &state)
        case .vaultSwitched(let path, let summary, let items):
            return vaultSwitched(to: path, summary: summary, items: items, in: &state, now: now)
        case .vaultSwitchFailed(let message):
            return vaultSwitchFailed(message, in: &state, now: now)
        case .syncProgress, .syncFinished, .newKeysNeedUnlock:
            return applySync(event, to: &state, now: now)
        }
    }

    // MARK: Keys

    /// A key: handled now, or kept for the page that awaited work will show (`AwaitedWork`).
    static func press(_ key: Key, in state: inout ScreenState, now: Date) -> [Effect] {
        guard var awaiting = state.awaiting else { return handle(key, in: &state, now: now) }
        if awaiting.keys.count < AwaitedWork.limit {
            awaiting.keys.append(key)
        } else {
            state.notice = Notice("Still waiting for the last action: this key was not kept.", isError: true,
                                  until: now.addingTimeInterval(Notice.lifetime))
        }
        state.awaiting = awaiting
        return []
    }

    /// Ends the wait for `kind` when that is the awaited work; returns the keys typed meanwhile,
    /// or nil when it was not awaited (a lock ended the wait).
    static func endAwaiting(_ kind: AwaitedWork.Kind, in state: inout ScreenState) -> [Key]? {
        guard let awaiting = state.awaiting, awaiting.kind == kind else { return nil }
        state.awaiting = nil
        return awaiting.keys
    }

    /// Keys typed ahead of awaited work, applied in order to the page its outcome has just set. A
    /// key that starts new awaited work keeps the rest for that work's outcome.
    static func replay(_ keys: [Key], in state: inout ScreenState, now: Date) -> [Effect] {
        keys.flatMap { press($0, in: &state, now: now) }
    }

    static func handle(_ key: Key, in state: inout ScreenState, now: Date) -> [Effect] {
        let context = KeyContext.current(of: state)
        var binding = KeyBindings.binding(for: key, in: context, map: state.settings.keys)
        // Terminals that send LF for Enter: ^J is Enter wherever it means nothing else.
        if key == .control("j"), binding.map({ $0.disabledReason(state) != nil }) ?? true {
            binding = KeyBindings.binding(for: .enter, in: context, map: state.settings.keys) ?? binding
        }
        if let binding {
            if let reason = binding.disabledReason(state) {
                if context.takesText, key.typedCharacter != nil { return type(key, in: &state, now: now) }
                state.notice = Notice(reason, until: now.addingTimeInterval(Notice.lifetime))
                return []
            }
            return perform(binding.action, key: key, in: &state, now: now)
        }
        return context.takesText ? type(key, in: &state, now: now) : []
    }

    /// A key that edits the focused field.
    static func type(_ key: Key, in state: inout ScreenState, now: Date) -> [Effect] {
        switch KeyContext.current(of: state) {
        case .firstRun, .locked: return typePassphrase(key, in: &state)
        case .filter: return typeFilter(key, in: &state)
        case .form: return typeForm(key, in: &state)
        case .pathPrompt: return typePath(key, in: &state)
        default: return []
        }
    }

    /// Does what `action` does; `key` is the key that asked for it (a kind's letter picks that kind).
    static func perform(_ action: Action, key: Key, in state: inout ScreenState, now: Date) -> [Effect] {
        switch action {
        case .moveUp, .moveDown, .pageUp, .pageDown, .moveToTop, .moveToBottom:
            return move(action, in: &state, now: now)
        case .open, .back, .startFilter, .keepFilter, .clearFilter, .toggleSort, .cycleKindFilter, .newItem, .newItemOfKind, .editItem,
             .deleteItem, .restoreEntry, .copyPassword, .copyUsername, .copyOrigin, .copyTOTP, .copyField, .reviewConflicts:
            return performBrowsing(action, in: &state, now: now)
        case .chooseKind:
            return chooseKind(ItemKind.picked(by: key), in: &state)
        case .cancelChoice:
            state.overlay = nil
            return []
        case .toggleReveal:
            return toggleReveal(in: &state)
        case .syncNow:
            return syncNow(&state, now: now)
        case .lock:
            return lock(&state, now: now, reason: nil)
        case .help:
            state.overlay = .help
            return []
        case .closeHelp:
            state.overlay = nil
            return []
        case .quit:
            return quit(&state, exitCode: 0)
        case .redraw:
            return [.redraw]
        case .submitPassphrase, .switchPassphraseField, .clearOrQuit:
            return performPassphrase(action, in: &state, now: now)
        case .nextField, .previousField, .save, .cancelEdit, .openGenerator, .insertNewline, .toggleCheckbox, .changeKind,
             .addCustomField, .removeCustomField, .moveCustomFieldUp, .moveCustomFieldDown, .cycleCustomFieldType,
             .longer, .shorter, .toggleWords, .toggleLowercase, .toggleUppercase, .toggleDigits, .toggleSymbols,
             .regenerate, .usePassword, .closeGenerator:
            return performForm(action, in: &state, now: now)
        case .swapChoice, .acceptReview:
            return performReview(action, in: &state)
        case .openDevices, .lockDevice, .signOutDevice, .removeDevice, .inviteDevice:
            return performDevices(action, in: &state, now: now)
        case .openHealth:
            return openHealth(in: &state)
        case .openTrash, .restoreFromTrash, .emptyTrash:
            return performTrash(action, in: &state)
        case .openMembers, .showInviteCommand, .inviteMember, .revokeMember:
            return performMembers(action, in: &state)
        case .openVaults, .switchVault:
            return performVaults(action, in: &state, now: now)
        case .saveFile, .addFile, .removeFile, .submitPath, .cancelPath:
            return performFiles(action, in: &state)
        case .confirm, .decline:
            return answer(action == .confirm, in: &state)
        }
    }

    static func toggleReveal(in state: inout ScreenState) -> [Effect] {
        switch state.page {
        case .detail(var detail):
            detail.isRevealed.toggle()
            state.page = .detail(detail)
        case .form(var form):
            form.isRevealed.toggle()
            state.page = .form(form)
        case .review(var review):
            review.isRevealed.toggle()
            state.page = .review(review)
        default:
            break
        }
        return []
    }

    static func answer(_ isYes: Bool, in state: inout ScreenState) -> [Effect] {
        guard case .confirm(let confirmation) = state.overlay else { return [] }
        state.overlay = nil
        if case .allowInvitation(let ticket) = confirmation.action {
            return answerInvitation(ticket, allow: isYes, in: &state)  // a no is an answer too
        }
        if case .allowMember(let ticket) = confirmation.action {
            return answerMember(ticket, allow: isYes, in: &state)
        }
        guard isYes else { return [] }
        switch confirmation.action {
        case .deleteItem(let id):
            state.awaiting = AwaitedWork(.deletion(itemID: id))
            return [.deleteItem(id: id, title: state.item(id)?.displayTitle ?? id)]
        case .restoreEntry(let id):
            // Saved as an edit from the item as it is now: the entry it replaces goes into the history.
            guard let item = state.item(id)?.item, let restored = ItemHistory.restoring(1, of: item) else { return [] }
            return [.saveItem(restored, base: item)]
        case .discardChanges:
            leaveForm(&state)
            return []
        case .discardChangesForVaults:
            guard case .form = state.page else { return [] }
            return openVaults(in: &state, now: state.lastInput)
        case .keepAsNewItem(let item):
            guard case .form = state.page else { return [] }
            state.awaiting = AwaitedWork(.save)
            return [.saveItem(item, base: nil)]
        case .signOutDevice, .removeDevice, .allowInvitation, .allowMember:
            return confirmed(confirmation.action)
        case .replaceFile, .removeFile:
            return confirmedFile(confirmation.action, in: &state)
        case .emptyTrash:
            return [.emptyTrash]
        case .revokeMember(let id, let name):
            return confirmedRevocation(id: id, name: name, in: &state)
        }
    }

    /// Closes a question whose page has gone, unanswered (`Confirmation.stands(in:)`; `n`'s
    /// question about the kind goes with its page too).
    static func closeStaleQuestion(in state: inout ScreenState) -> [Effect] {
        switch state.overlay {
        case .confirm(let confirmation) where !confirmation.stands(in: state):
            return closeOverlay(in: &state)
        case .chooseKind(let question) where question.askedOn != state.page.identity:
            return closeOverlay(in: &state)
        case .path(let prompt) where prompt.askedOn != state.page.identity:
            return closeOverlay(in: &state)
        default:
            return []
        }
    }

    /// Opens the form of a new item of `kind` (nil: the kind the question's cursor is on).
    static func chooseKind(_ kind: ItemKind?, in state: inout ScreenState) -> [Effect] {
        guard case .chooseKind(let question) = state.overlay else { return [] }
        state.overlay = nil
        state.page = .form(ItemForm(kind: kind ?? question.kind))
        return []
    }

    /// Closes the help or a question without an answer. An invitation's question is answered no,
    /// so the new device hears at once rather than when the code expires.
    static func closeOverlay(in state: inout ScreenState) -> [Effect] {
        defer { state.overlay = nil }
        guard case .confirm(let confirmation) = state.overlay else { return [] }
        switch confirmation.action {
        case .allowInvitation(let ticket): return answerInvitation(ticket, allow: false, in: &state)
        case .allowMember(let ticket): return answerMember(ticket, allow: false, in: &state)
        default: return []
        }
    }

    // MARK: Time

    static func tick(_ state: inout ScreenState, now: Date) -> [Effect] {
        var effects: [Effect] = []
        if !state.isLocked, state.settings.autoLockSeconds > 0,
           now.timeIntervalSince(state.lastInput) >= state.settings.autoLockSeconds {
            let minutes = Format.duration(state.settings.autoLockSeconds)
            effects += lock(&state, now: now, reason: "Locked after \(minutes) without a key press.")
        }
        if let clipboard = state.clipboard, now >= clipboard.until {
            state.clipboard = nil
            effects.append(.clearClipboard)
        }
        if let notice = state.notice, now >= notice.until { state.notice = nil }
        if state.hasVault { effects += schedule(state.scheduler.tick(now: now), in: &state, now: now) }
        return effects + refreshVaults(in: &state, now: now)
    }

    static func quit(_ state: inout ScreenState, exitCode: Int32) -> [Effect] {
        state.exitCode = exitCode
        var effects: [Effect] = []
        if state.clipboard != nil {
            state.clipboard = nil
            effects.append(.clearClipboard)
        }
        if !state.isLocked { effects.append(.lockVault) }
        return effects + [.quit]
    }
}
