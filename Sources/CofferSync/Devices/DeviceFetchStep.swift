import CofferCore
import Foundation

/// Lists the device registry into the vault (a 304 when nothing changed since the last listing).
/// Run when a message needs a sender's or a recipient's record, and by `device list`; not on an
/// idle sync.
enum DeviceFetchStep {
    static func run(_ context: SyncContext) async throws {
        CrashPoint.reach("sync.devices.fetch.before")
        let marker = try context.database.syncRead { try $0.marker(.devices) }
        guard case .changes(let records, let etag) = try await context.client.listRecords(.devices, etag: marker) else { return }
        let devices = records.compactMap(DeviceRecord.decode)
        if devices.count < records.count {
            context.logger.warning("devices: \(records.count - devices.count) malformed record(s) ignored")
        }
        try context.database.syncWrite { store in
            try store.replaceDeviceRecords(devices)
            try store.setMarker(.devices, etag)
            CrashPoint.reach("sync.devices.fetch.inside")
        }
        CrashPoint.reach("sync.devices.fetch.after")
    }
}
