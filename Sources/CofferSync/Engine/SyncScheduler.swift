import Foundation

/// When to sync: a pure state machine that turns triggers and clock ticks into actions.
///
/// Triggers (architecture §4): on start when an account is set, a few seconds after a local change,
/// every 30 s while running, on unlock, and on the manual key. One sync at a time; a trigger
/// during a sync runs one more sync after it. No sync starts before a Backoff/Retry-After deadline.
/// Time is a parameter, so tests drive it with a fake clock.
public struct SyncScheduler: Sendable, Equatable {
    public enum Trigger: String, Sendable, Equatable {
        case start, localChange, periodic, unlock, manual
    }

    public enum Action: Sendable, Equatable {
        /// Run one sync now. `trigger` says why (the screen shows it; unlock means reconcile).
        case startSync(Trigger)
        /// A manual request refused because the server asked us to back off until `until`.
        case deferredByBackoff(until: Date)
    }

    public var debounce: TimeInterval
    public var interval: TimeInterval
    public private(set) var isSyncing = false
    public private(set) var isRerunRequested = false
    public private(set) var pendingTrigger: Trigger?
    public private(set) var changeDeadline: Date?
    public private(set) var nextPeriodic: Date?
    public private(set) var backoffUntil: Date?
    public var hasAccount: Bool

    public init(hasAccount: Bool, debounce: TimeInterval = 3, interval: TimeInterval = 30, backoffUntil: Date? = nil) {
        self.hasAccount = hasAccount
        self.debounce = debounce
        self.interval = interval
        self.backoffUntil = backoffUntil
    }

    /// Something happened that may call for a sync.
    public mutating func handle(_ trigger: Trigger, now: Date) -> [Action] {
        guard hasAccount else { return [] }
        switch trigger {
        case .localChange:
            changeDeadline = now.addingTimeInterval(debounce)
            return []
        case .manual:
            if let backoffUntil, now < backoffUntil { return [.deferredByBackoff(until: backoffUntil)] }
            return request(trigger, now: now)
        case .start, .unlock, .periodic:
            return request(trigger, now: now)
        }
    }

    /// The clock moved: fire a debounced change or the periodic sync when due.
    public mutating func tick(now: Date) -> [Action] {
        guard hasAccount else { return [] }
        if let deadline = changeDeadline, now >= deadline {
            changeDeadline = nil
            return request(.localChange, now: now)
        }
        if let next = nextPeriodic, now >= next {
            return request(.periodic, now: now)
        }
        return []
    }

    /// The running sync ended; `backoffUntil` is the server's latest Backoff/Retry-After deadline.
    public mutating func syncFinished(now: Date, backoffUntil: Date?) -> [Action] {
        isSyncing = false
        self.backoffUntil = backoffUntil
        nextPeriodic = now.addingTimeInterval(interval)
        if isRerunRequested {
            isRerunRequested = false
            let trigger = pendingTrigger ?? .periodic
            pendingTrigger = nil
            return request(trigger, now: now)
        }
        return []
    }

    /// The earliest moment `tick` could do something (for the run loop's timer).
    public var nextWake: Date? {
        guard hasAccount else { return nil }
        let candidates = [changeDeadline, nextPeriodic, backoffUntil].compactMap { $0 }
        return candidates.min()
    }

    private mutating func request(_ trigger: Trigger, now: Date) -> [Action] {
        if isSyncing {
            isRerunRequested = true
            // Keep the most meaningful reason: an unlock (reconcile) or manual request wins.
            if pendingTrigger == nil || trigger == .unlock || trigger == .manual { pendingTrigger = trigger }
            return []
        }
        if let backoffUntil, now < backoffUntil {
            // Automatic triggers wait quietly; the periodic timer fires again at the deadline.
            nextPeriodic = backoffUntil
            return []
        }
        isSyncing = true
        if trigger == .localChange || changeDeadline.map({ now >= $0 }) == true { changeDeadline = nil }
        return [.startSync(trigger)]
    }
}
