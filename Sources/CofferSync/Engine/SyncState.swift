import CofferCore
import Foundation
import Logging

/// Sync metadata persisted in `meta` (Firefox for iOS's sync state machine): last sync, last error, Backoff deadline — so
/// another process (the next `coffer sync`) obeys them too.
enum SyncState {
    static func backoffUntil(_ database: VaultDatabase) -> Date? {
        (try? database.meta(.backoffUntil)).flatMap { $0.flatMap(Timestamp.init(iso8601:)) }?.date
    }

    /// How far a new offset may be from the stored one before the middle of a sync stores it:
    /// corrected clocks need only agree to about a second (the Airmail journal), and an idle sync then
    /// commits (and waits on the disk) once, at its end, instead of twice.
    static let skewTolerance: Int64 = 250

    /// The clock offset alone, as soon as the first answers give it.
    static func record(_ skew: ClockSkew, in database: VaultDatabase, logger: Logger) {
        if let stored = database.clockSkew, abs(stored.offsetMilliseconds - skew.offsetMilliseconds) <= skewTolerance {
            return
        }
        do {
            try database.syncWriteBookkeeping { store in try store.setMeta([.clockSkew: skew.stored]) }
        } catch {
            logger.error("could not record the clock offset: \(error)")
        }
    }

    /// Bookkeeping, not an acknowledged write: committed without waiting for the disk (an idle
    /// sync's only commit; a power cut can at worst lose it).
    static func record(_ report: SyncReport, at time: Date, in database: VaultDatabase, logger: Logger) {
        do {
            try database.syncWriteBookkeeping { store in
                let completed = report.error == nil || report.error == .syncLocked
                if completed { try store.setMeta([.lastSync: Timestamp(time).iso8601]) }
                let backoff = report.backoffUntil.flatMap { $0 > time ? Timestamp($0).iso8601 : nil }
                try store.setMeta([.lastError: report.error?.rawValue, .lastErrorMessage: report.message.map(TerminalText.message),
                                   .backoffUntil: backoff])
                if let skew = report.clockSkew { try store.setMeta([.clockSkew: skew.stored]) }
            }
        } catch {
            // A vault on a full disk now opens without writing (its WAL is kept), so a sync can get
            // this far; the report already says DISK, and once is enough on the terminal.
            logger.log(level: report.error == .disk ? .debug : .error, "could not record the sync outcome: \(error)")
        }
    }
}
