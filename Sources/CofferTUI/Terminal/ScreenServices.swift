import CofferCore
import CofferSync
import CofferSystem
import Foundation

/// What the screen needs from the rest of Coffer, injected so it runs (and is tested) without
/// a server: the executable wires the sync engine and the review store in.
public struct ScreenServices: Sendable {
    /// Runs one sync of `vault` (locked or not: the engine merges only when unlocked), reporting
    /// progress as it goes. Called off the input loop, one at a time.
    var runSync: @Sendable (Vault, @escaping @Sendable (SyncProgress) -> Void) async -> SyncReport
    /// The items merged on unlock that wait for review (⚑), each with its fields changed on both sides.
    var loadReviews: @Sendable (Vault) async throws -> [ConflictReview]
    /// Saves the review's choices (those that differ from the merge's become a local change) and
    /// clears the item's ⚑.
    var resolveReview: @Sendable (Vault, ConflictReview) async throws -> Void
    /// The account's devices (architecture §9); needs the vault unlocked.
    var loadDevices: @Sendable (Vault) async throws -> [KnownDevice]
    /// Seals a message to the device with that id into the outbox (the next sync sends it).
    var sendToDevice: @Sendable (Vault, MessageTopic, String) async throws -> Void
    /// Removes the device with that id from the account.
    var removeDevice: @Sendable (Vault, String) async throws -> Void
    var clipboard: ClipboardService
    var now: @Sendable () -> Date

    public init(runSync: @escaping @Sendable (Vault, @escaping @Sendable (SyncProgress) -> Void) async -> SyncReport,
                loadReviews: @escaping @Sendable (Vault) async throws -> [ConflictReview] = { _ in [] },
                resolveReview: @escaping @Sendable (Vault, ConflictReview) async throws -> Void = { _, _ in },
                loadDevices: @escaping @Sendable (Vault) async throws -> [KnownDevice] = { _ in [] },
                sendToDevice: @escaping @Sendable (Vault, MessageTopic, String) async throws -> Void = { _, _, _ in },
                removeDevice: @escaping @Sendable (Vault, String) async throws -> Void = { _, _ in },
                clipboard: ClipboardService = .system(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.runSync = runSync
        self.loadReviews = loadReviews
        self.resolveReview = resolveReview
        self.loadDevices = loadDevices
        self.sendToDevice = sendToDevice
        self.removeDevice = removeDevice
        self.clipboard = clipboard
        self.now = now
    }
}
