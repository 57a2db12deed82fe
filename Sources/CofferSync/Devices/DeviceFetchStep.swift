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
        let decoded = records.compactMap(DeviceRecord.decode)
        if decoded.count < records.count {
            context.logger.warning("devices: \(records.count - decoded.count) malformed record(s) ignored")
        }
        // A device this one removed with `--rotate` stays removed: a record of it listed again is
        // the server replaying the registry from before (issue 41), never sent a message here.
        let removed = try context.database.syncRead { try $0.removedDevices() }
        let devices = decoded.filter { !removed.contains($0.id) }
        if devices.count < decoded.count {
            context.logger.warning("devices: \(decoded.count - devices.count) device(s) removed here listed again by the server; ignored")
        }
        try context.database.syncWrite { store in
            try store.replaceDeviceRecords(devices)
            try store.setMarker(.devices, etag)
            CrashPoint.reach("sync.devices.fetch.inside")
        }
        CrashPoint.reach("sync.devices.fetch.after")
    }
}
