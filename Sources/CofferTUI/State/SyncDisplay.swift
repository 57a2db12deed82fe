import CofferSync
import Foundation

/// What the status bar knows about sync (the scheduler knows when the next one runs).
struct SyncDisplay: Sendable, Equatable {
    /// Why the running sync started; nil when none runs.
    var running: SyncScheduler.Trigger?
    var progress: SyncProgress?
    /// How the last sync ended (nil: it completed).
    var lastError: SyncErrorName?
    var lastMessage: String?
    var lastSync: Date?

    init(running: SyncScheduler.Trigger? = nil, progress: SyncProgress? = nil, lastError: SyncErrorName? = nil,
                lastMessage: String? = nil, lastSync: Date? = nil) {
        self.running = running
        self.progress = progress
        self.lastError = lastError
        self.lastMessage = lastMessage
        self.lastSync = lastSync
    }
}
