import CofferAgent
import CofferCore
import CofferSync
import Foundation

/// What the device commands need: this process's sync engine on the vault unlocked here, or the
/// agent that holds the vault unlocked (its engine; the keys that seal messages stay there).
protocol DeviceControl: Sendable {
    func devices() async throws -> [KnownDevice]
    /// Queues `topic` for each device (sent by the next sync).
    func queue(_ topic: MessageTopic, to deviceIDs: [String]) async throws
    /// Server errors come back as `SyncFailure` (exit 10–13), as `sync` reports them.
    func remove(device id: String, rotate: Bool) async throws
    func syncOutcome() async throws -> SyncOutcome
}

extension SyncEngine: DeviceControl {
    func queue(_ topic: MessageTopic, to deviceIDs: [String]) async throws {
        _ = try await send(topic, to: deviceIDs)
    }

    nonisolated func remove(device id: String, rotate: Bool) async throws {
        try await AccountOptions.mapped { try await self.removeDevice(id, rotate: rotate) }
    }

    func syncOutcome() async throws -> SyncOutcome { SyncOutcome(await sync()) }
}

/// The agent's own `devices`, `queue(_:to:)` and `remove(device:rotate:)` fit as they are.
extension AgentVault: DeviceControl {
    func syncOutcome() async throws -> SyncOutcome { try sync() }
}
