import CofferCore
import CofferSync
import Foundation

/// Sync: the scheduler's decisions become effects; the engine's reports become the status bar.
extension Update {
    static func applySync(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        switch event {
        case .syncProgress(let progress):
            guard state.sync.running != nil else { return [] }
            state.sync.progress = progress
            return []
        case .newKeysNeedUnlock:
            return lockForNewKeys(in: &state, now: now)
        case .syncFinished(let report):
            let trigger = state.sync.running
            let previousError = state.sync.lastError
            state.sync.running = nil
            state.sync.progress = nil
            state.sync.lastError = report.error
            state.sync.lastMessage = report.message
            // SYNC_LOCKED means everything but the merge was done: the vault is as synced as it can be.
            if report.error == nil || report.error == .syncLocked { state.sync.lastSync = now }
            // A failure is told once, or every time the user asked for the sync; the status bar keeps it.
            if let error = report.error, error != .syncLocked, trigger == .manual || error != previousError {
                let text = report.message.map { "\(error.rawValue): \($0)" } ?? "Sync failed: \(error.rawValue)."
                state.notice = Notice(text, isError: true, until: now.addingTimeInterval(Notice.lifetime))
            }
            if report.merged > 0, !state.isLocked {
                let items = report.merged == 1 ? "1 item" : "\(report.merged) items"
                state.notice = Notice("Merged \(items) changed on two devices: press v to review.",
                                      until: now.addingTimeInterval(Notice.lifetime))
            }
            let next = state.scheduler.syncFinished(now: now, backoffUntil: report.backoffUntil)
            return lockedRemotely(report.remoteLock, in: &state, now: now) + lockedForNewKeys(report.newEpoch, in: &state, now: now)
                + [.reload] + schedule(next, in: &state, now: now)
        default:
            return []
        }
    }

    /// A `lock` from another device: the engine locked the vault; the screen follows and says who.
    static func lockedRemotely(_ notice: DeviceLockNotice?, in state: inout ScreenState, now: Date) -> [Effect] {
        guard let notice, !state.isLocked else { return [] }
        let effects = lock(&state, now: now, reason: nil)
        if case .locked(var prompt) = state.page {
            prompt.remark = "Locked from \(notice.from) at \(Format.clockTime(notice.at.date, in: state.settings.timeZone))"
            state.page = .locked(prompt)
        }
        return effects
    }

    /// A shared vault's members changed (§17): the engine locked the vault, whose keys are about
    /// to be replaced; the passphrase keys this screen kept unlock it again and take the new ones.
    static func lockedForNewKeys(_ epoch: UInt64?, in state: inout ScreenState, now: Date) -> [Effect] {
        guard epoch != nil, !state.isLocked else { return [] }
        return [.takeNewKeys]
    }

    /// No kept keys took the new epoch's: the screen locks, saying why; unlocking takes them.
    static func lockForNewKeys(in state: inout ScreenState, now: Date) -> [Effect] {
        guard !state.isLocked else { return [] }
        let effects = lock(&state, now: now, reason: nil)
        if case .locked(var prompt) = state.page {
            prompt.remark = "The members changed: unlock to take the vault's new keys"
            state.page = .locked(prompt)
        }
        return effects
    }

    static func syncNow(_ state: inout ScreenState, now: Date) -> [Effect] {
        let wasSyncing = state.scheduler.isSyncing
        let effects = schedule(state.scheduler.handle(.manual, now: now), in: &state, now: now)
        if wasSyncing {
            state.notice = Notice("A sync is running; another one follows it.", until: now.addingTimeInterval(Notice.lifetime))
        }
        return effects
    }

    /// Turns the scheduler's actions into effects and what the status bar shows.
    static func schedule(_ actions: [SyncScheduler.Action], in state: inout ScreenState, now: Date) -> [Effect] {
        actions.compactMap { action in
            switch action {
            case .startSync(let trigger):
                state.sync.running = trigger
                state.sync.progress = nil
                return .startSync(trigger)
            case .deferredByBackoff(let until):
                let time = Format.clockTime(until, in: state.settings.timeZone)
                state.notice = Notice("The server asked to wait: syncing again at \(time).",
                                      until: now.addingTimeInterval(Notice.lifetime))
                return nil
            }
        }
    }
}
