import CofferCore

/// The Devices page (`D`): the account's devices as the last listing gave them, and the cursor.
struct DevicesState: Sendable, Equatable {
    /// Nil until the first listing arrives.
    var devices: [KnownDevice]?
    var cursor = 0
    /// An invitation opened here (`i`), until it ends.
    var invitation: DeviceInvitation?

    init(devices: [KnownDevice]? = nil) {
        self.devices = devices
    }

    /// The device under the cursor.
    var current: KnownDevice? {
        guard let devices, devices.indices.contains(cursor) else { return nil }
        return devices[cursor]
    }

    /// This device first, then by name; unverified ones last.
    static func ordered(_ devices: [KnownDevice]) -> [KnownDevice] {
        devices.sorted { order($0) < order($1) }
    }

    private static func order(_ device: KnownDevice) -> (Int, String, String) {
        (device.isCurrent ? 0 : device.isVerified ? 1 : 2, device.name ?? "", device.id)
    }
}
