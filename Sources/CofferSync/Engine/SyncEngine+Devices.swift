import CofferCore
import Foundation

/// What `coffer device …` and the Devices page ask of the registry (architecture §9). Each needs the
/// vault unlocked: names are sealed, and so is every message.
extension SyncEngine {
    /// The account's devices, this one published first if due, the registry listed fresh.
    public func devices() async throws -> [KnownDevice] {
        let context = SyncContext(vault: vault, client: client, logger: logger, progress: { _ in })
        _ = try await DeviceRegisterStep.run(context, now: Timestamp(now()).milliseconds)
        try await DeviceFetchStep.run(context)
        return try await vault.knownDevices(try vault.database.syncRead { try $0.deviceRecords() })
    }

    /// Seals `topic` to each device and queues it in the outbox, in one transaction; the next sync
    /// sends it (call `sync()` to send now). Refuses unverified devices and this one. Works
    /// offline for devices already listed here.
    @discardableResult
    public func send(_ topic: MessageTopic, data: String = "", to deviceIDs: [String]) async throws -> [MessageRecord] {
        var records = try vault.database.syncRead { try $0.deviceRecords() }
        if !deviceIDs.allSatisfy({ id in records.contains { $0.id == id } }) {
            try await DeviceFetchStep.run(SyncContext(vault: vault, client: client, logger: logger, progress: { _ in }))
            records = try vault.database.syncRead { try $0.deviceRecords() }
        }
        let created = Timestamp(now())
        var sealed: [MessageRecord] = []
        for id in deviceIDs {
            guard let record = records.first(where: { $0.id == id }), id != (try vault.deviceID()) else {
                throw CoreError.deviceMessage(reason: "no other device has the id \(id)")
            }
            sealed.append(try await vault.sealMessage(MessageContent(topic: topic, data: data, created: created), to: record))
        }
        try vault.database.syncWrite { store in
            for message in sealed { try store.addToOutbox(message) }
        }
        return sealed
    }

    /// Removes a device's record. With `rotate`, seals a new account password to every other
    /// verified device; the password changes once they all have it (`RotationStep`), and the
    /// removed device, which knows only the old one, gets `SYNC_AUTH`.
    public func removeDevice(_ id: String, rotate: Bool) async throws {
        let devices = try await self.devices()
        guard let removed = devices.first(where: { $0.id == id }), !removed.isCurrent else {
            throw CoreError.deviceMessage(reason: "no other device has the id \(id)")
        }
        try await client.deleteRecord(.devices, id: id)
        // With `--rotate` the removal is for good: a record of it the server lists again (a
        // replayed registry) is ignored here (`DeviceFetchStep`). Without, the device keeps the
        // account and publishes its record again (README), so nothing is remembered.
        try vault.database.syncWrite { store in
            if rotate { try store.rememberRemovedDevice(id) } else { try store.deleteDeviceRecord(id) }
        }
        // Nobody would ever delete what still waits for it.
        if case .changes(let waiting, _) = try await client.listRecords(.messages, filter: ["recipient": id], etag: nil) {
            for message in waiting.compactMap(MessageRecord.decode) { try await client.deleteRecord(.messages, id: message.id) }
        }
        guard rotate else { return }
        let password = SecureBuffer.random(count: 24).withUnsafeBytes { Data($0).base64EncodedString() }
        let remaining = devices.filter { $0.isVerified && !$0.isCurrent && $0.id != id }.map(\.id)
        let messages = try await send(.credentials, data: password, to: remaining)
        let pending = RotationStep.Pending(password: password, messages: messages.map(\.id), started: Timestamp(now()).milliseconds)
        try vault.database.syncWrite { store in
            try store.setMeta([.pendingRotation: String(decoding: try JSONEncoder().encode(pending), as: UTF8.self)])
        }
    }
}
