import CofferCore
import Foundation

/// When the agent syncs and when it locks: a pure state machine that turns what happens to the
/// agent into actions, which `AgentServer` performs (architecture §12).
///
/// The agent locks — removes its socket, wipes its keys, exits — on `coffer lock`, after its idle
/// limit without a use (every request but `status` is one), on SIGTERM, SIGHUP or SIGINT, when a
/// sync locked its vault (a `lock` message it handled), when another process's sync stored a lock
/// sent after this unlock, or when its vault file is gone. It syncs every `syncInterval` seconds
/// (0: never), one sync at a time, so that a lock sent from another device reaches it. Time is a
/// parameter: tests drive it with a fake clock.
public struct AgentLifecycle: Sendable, Equatable {
    /// What the server saw of its vault at a tick.
    public struct Observation: Sendable, Equatable {
        /// The vault holds no keys any more: a sync handled a `lock` message.
        public var isVaultLocked: Bool
        /// The vault file is still where it was (removed or moved: nothing is left to serve).
        public var hasVaultFile: Bool
        /// When the newest lock another device sent was sent, as the vault stores it
        /// (`VaultStatus.remoteLock`); nil when none was ever stored.
        public var remoteLock: Timestamp?

        public init(isVaultLocked: Bool = false, hasVaultFile: Bool = true, remoteLock: Timestamp? = nil) {
            self.isVaultLocked = isVaultLocked
            self.hasVaultFile = hasVaultFile
            self.remoteLock = remoteLock
        }
    }

    public enum Event: Sendable, Equatable {
        /// Once a second, with what the server observed.
        case tick(Observation)
        /// A request that counts as a use arrived: the idle clock starts again.
        case used
        /// `renew` with a new idle limit (seconds; 0: none): the clock starts again under it. A
        /// limit `acceptsIdleLimit` refuses counts as a use and leaves the limit as it was.
        case renewed(idle: Double)
        /// `lock` was answered.
        case lockRequested
        /// SIGTERM, SIGHUP or SIGINT.
        case signal(Int32)
        /// The sync `startSync` began has ended.
        case syncFinished
    }

    /// Why the agent locked.
    public enum Reason: Sendable, Equatable {
        case lockRequested
        case idle
        case signal(Int32)
        /// A sync handled a `lock` message and locked the vault.
        case vaultLocked
        case vaultFileGone
        /// Another process's sync stored a lock sent after this unlock.
        case remoteLock
    }

    public enum Action: Sendable, Equatable {
        /// Run the periodic sync; the server reports `syncFinished` when it ends.
        case startSync
        /// Lock: remove the socket, wipe the keys, exit. Given once; nothing follows it.
        case shutdown(Reason)
    }

    /// Seconds without a use before the agent locks; 0: never.
    public private(set) var idleLimit: Double
    public private(set) var lastUse: Date
    public let syncInterval: Double
    /// When this process unlocked the vault: a lock sent before it does not lock the agent.
    public let unlockedAt: Timestamp
    public private(set) var nextSync: Date
    public private(set) var isSyncing = false
    /// Set by the one `shutdown` action; every event after it is ignored.
    public private(set) var shutdownReason: Reason?

    public init(idleLimit: Double, syncInterval: Double, unlockedAt: Timestamp, now: Date) {
        self.idleLimit = idleLimit
        self.syncInterval = syncInterval
        self.unlockedAt = unlockedAt
        lastUse = now
        nextSync = now.addingTimeInterval(syncInterval)
    }

    public mutating func handle(_ event: Event, now: Date) -> [Action] {
        guard shutdownReason == nil else { return [] }
        switch event {
        case .tick(let observed):
            return tick(observed, now: now)
        case .used:
            lastUse = now
            return []
        case .renewed(let seconds):
            if Self.acceptsIdleLimit(seconds) { idleLimit = seconds }
            lastUse = now
            return []
        case .lockRequested:
            return shutdown(.lockRequested)
        case .signal(let number):
            return shutdown(.signal(number))
        case .syncFinished:
            isSyncing = false
            return []
        }
    }

    /// Seconds before the idle lock; nil without a limit.
    public func secondsLeft(now: Date) -> Double? {
        idleLimit > 0 ? max(0, idleLimit - now.timeIntervalSince(lastUse)) : nil
    }

    /// An idle limit is a number of seconds, 0 or more: a negative one would never run out.
    public static func acceptsIdleLimit(_ seconds: Double) -> Bool {
        seconds.isFinite && seconds >= 0
    }

    /// Each reason to lock in turn, then the periodic sync: not on a vault about to lock, nor
    /// beside another; the next one is due `syncInterval` after this one started.
    private mutating func tick(_ observed: Observation, now: Date) -> [Action] {
        if let left = secondsLeft(now: now), left <= 0 { return shutdown(.idle) }
        if observed.isVaultLocked { return shutdown(.vaultLocked) }
        if !observed.hasVaultFile { return shutdown(.vaultFileGone) }
        if let sent = observed.remoteLock, sent > unlockedAt { return shutdown(.remoteLock) }
        guard syncInterval > 0, now >= nextSync, !isSyncing else { return [] }
        isSyncing = true
        nextSync = now.addingTimeInterval(syncInterval)
        return [.startSync]
    }

    private mutating func shutdown(_ reason: Reason) -> [Action] {
        shutdownReason = reason
        return [.shutdown(reason)]
    }
}

extension AgentLifecycle.Event {
    /// What a request tells the lifecycle as it arrives: every request but `status` is a use
    /// (`renew` with a limit sets it too). `lock` is told again once answered (`lockRequested`).
    public init?(arrivalOf request: AgentRequest) {
        switch request {
        case .status:
            return nil
        case .renew(let seconds?) where AgentLifecycle.acceptsIdleLimit(seconds):
            self = .renewed(idle: seconds)
        default:
            self = .used
        }
    }
}
