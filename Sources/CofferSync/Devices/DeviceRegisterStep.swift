import CofferCore
import Foundation

/// Publishes this device's record (architecture §9) on an unlocked sync: once at first, again after a
/// rename, and otherwise at most daily (the refresh is the "last seen" others show). One PUT when
/// due, nothing otherwise: an idle sync costs no request here.
enum DeviceRegisterStep {
    static let refreshInterval: Int64 = 24 * 3600 * 1000

    /// Pure: due when never published (or renamed since), or published a day ago.
    static func isDue(lastRegistered: Int64?, now: Int64) -> Bool {
        guard let lastRegistered else { return true }
        return now - lastRegistered >= refreshInterval || now < lastRegistered
    }

    /// Returns whether the record was written.
    static func run(_ context: SyncContext, now: Int64) async throws -> Bool {
        guard await !context.vault.isLocked else { return false }
        let last = try context.database.meta(.deviceRegistered).flatMap { Int64($0) }
        guard isDue(lastRegistered: last, now: now) else { return false }
        var record = try await context.vault.ownDeviceRecord()
        CrashPoint.reach("sync.devices.register.before")
        record.lastModified = try await context.client.putRecord(.devices, id: record.id, record: try record.serverJSON())
        // The server has the record, this vault does not know yet: the next unlocked sync puts it again.
        CrashPoint.reach("sync.devices.register.after-send")
        try context.database.syncWrite { store in
            try store.saveDeviceRecord(record)
            try store.setMeta([.deviceRegistered: String(now)])
        }
        return true
    }
}
