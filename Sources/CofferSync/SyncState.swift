import CofferCore
import Foundation
import Logging

/// Sync metadata persisted in `meta` (seed 001): last sync, last error, Backoff deadline — so
/// another process (the next `coffer sync`) obeys them too.
enum SyncState {
    static func backoffUntil(_ database: VaultDatabase) -> Date? {
        (try? database.meta(.backoffUntil)).flatMap { $0.flatMap(Timestamp.init(iso8601:)) }?.date
    }

    static func record(_ report: SyncReport, at time: Date, in database: VaultDatabase, logger: Logger) {
        do {
            try database.write { db in
                let completed = report.error == nil || report.error == .syncLocked
                if completed { try VaultDatabase.setMeta(.lastSync, Timestamp(time).iso8601, in: db) }
                try VaultDatabase.setMeta(.lastError, report.error?.rawValue, in: db)
                try VaultDatabase.setMeta(.lastErrorMessage, report.message, in: db)
                let backoff = report.backoffUntil.flatMap { $0 > time ? Timestamp($0).iso8601 : nil }
                try VaultDatabase.setMeta(.backoffUntil, backoff, in: db)
            }
        } catch {
            logger.error("could not record the sync outcome: \(error)")
        }
    }
}
