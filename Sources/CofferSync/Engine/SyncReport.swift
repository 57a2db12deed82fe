import CofferCore
import Foundation

/// The error names of the Lockbox design, which the screen and the exit codes use.
public enum SyncErrorName: String, Sendable, Equatable, Codable {
    /// No connection to the server.
    case offline = "OFFLINE"
    /// Any other transport or server failure, or a malformed answer.
    case network = "NETWORK"
    /// Everything else was done; conflicts wait for an unlock.
    case syncLocked = "SYNC_LOCKED"
    /// Credentials missing or refused (401/403).
    case syncAuth = "SYNC_AUTH"
    /// The server sent records older than this device's (a rollback or a replay); ours were kept.
    case rollback = "ROLLBACK"
    /// This device's vault file could not be read or written (a full disk): not the server's doing.
    case disk = "DISK"
    /// The server sent records that are not ours (they fail to open, or a deletion nobody entitled
    /// wrote): refused, ours kept and sent again. Added 2026-12-07; an older reader of the stored
    /// last-sync name shows it as it is (`meta.last_error` is text).
    case forged = "FORGED"
}

/// Where a running sync is, for progress displays.
public struct SyncProgress: Sendable, Equatable {
    public enum Step: String, Sendable { case fetch, examine, reconcile, push, apply }
    public var step: Step
    public var collection: String
    public var done: Int
    public var total: Int

    public init(step: Step, collection: String, done: Int, total: Int) {
        self.step = step
        self.collection = collection
        self.done = done
        self.total = total
    }
}

/// What one sync did and how it ended.
public struct SyncReport: Sendable, Equatable {
    /// nil when the sync completed.
    public var error: SyncErrorName?
    /// One sentence for the user when `error` is set.
    public var message: String?
    public var downloaded = 0
    public var uploaded = 0
    public var merged = 0
    /// Conflicts still waiting for an unlock.
    public var conflictsWaiting = 0
    /// The server asked for no requests before this time.
    public var backoffUntil: Date?
    /// Items merged in this sync (they get the ⚑ badge until reviewed).
    public var mergedIDs: [String] = []
    /// Records the server sent older than the version this device holds (rollbacks or replays).
    public var rolledBack = 0
    /// Records the server sent that are not ours (`SyncErrorName.forged`).
    public var refused = 0
    /// The device clock's offset from the server's, from this sync's answers.
    public var clockSkew: ClockSkew?
    /// Another device locked this one (a `lock` or `signout` message handled in this sync).
    public var remoteLock: DeviceLockNotice?
    /// A shared vault's members changed and the open session could not take the new epoch's key
    /// (it holds no passphrase keys, or the key was refused): the vault was locked, and the key
    /// waits for an unlock (architecture §17). A session that took it leaves this nil.
    public var newEpoch: UInt64?
    /// The sync stopped because this device's vault could not be read or written (a full disk),
    /// not because of the server: a command exits 1 ("any other error") for it.
    public var isLocalFailure: Bool { error == .disk }

    public init(error: SyncErrorName? = nil, message: String? = nil) {
        self.error = error
        self.message = message
    }
}
