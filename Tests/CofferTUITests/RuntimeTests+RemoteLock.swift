import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// `device lock` reaching an unlocked screen: the runtime with a real vault, the real sync engine
/// and the test Kinto; another vault of the account sends the lock.
extension RuntimeTests {
    static let remotePassphrase = "pass phrase"

    /// The desk's engine and an unlocked screen on the laptop, both registered on a fresh account.
    @MainActor
    func remoteLockSetUp() async throws -> (desk: SyncEngine, runtime: Runtime, screen: MemoryScreen, laptopPath: String) {
        let server = try EndToEndSyncTests.kintoURL()
        let account = SyncAccount(server: server, user: "lock-\(UUID().uuidString.lowercased())", password: "pw-\(UUID().uuidString)")
        try await KintoClient.createAccount(server: server, user: account.user, password: account.password)
        let desk = try Vault.create(at: directory.appendingPathComponent("desk.db").path,
                                    passphrase: SecureBuffer(copying: Array(Self.remotePassphrase.utf8)),
                                    kdf: .fresh(memory: KDFParameters.minimumMemory, iterations: 3), deviceName: "desk")
        try account.save(to: desk.database)
        let deskEngine = try XCTUnwrap(try SyncEngine.forAccount(of: desk))
        try await EndToEndSyncTests.syncSucceeds(deskEngine)
        let laptopPath = directory.appendingPathComponent("laptop.db").path
        let joined = try await EndToEndSyncTests.join(at: laptopPath, account: account, passphrase: Self.remotePassphrase,
                                                      deviceName: "laptop")
        try await EndToEndSyncTests.syncSucceeds(try XCTUnwrap(try SyncEngine.forAccount(of: joined)))
        await joined.lock()

        let vault = try Vault.open(at: laptopPath)
        let engine = try XCTUnwrap(try SyncEngine.forAccount(of: vault))
        let services = ScreenServices(runSync: { _, progress in await engine.sync(progress: progress) }, clipboard: .terminalOnly)
        let state = ScreenState(vaultPath: laptopPath, summary: VaultSummary(try vault.database.status()),
                                settings: Fixtures.settings, now: Date())
        let screen = MemoryScreen()
        let runtime = Runtime(state: state, vault: vault, screen: screen, services: services, options: ScreenOptions())
        runtime.dispatch(.started)
        screen.pendingInput = Self.remotePassphrase.map { .key(.character($0)) } + [.key(.enter)]
        try await turn(runtime) { !runtime.state.isLocked && runtime.state.sync.running == nil }
        XCTAssertFalse(runtime.state.isLocked)
        return (deskEngine, runtime, screen, laptopPath)
    }

    @MainActor
    func testALockFromAnotherDeviceLocksTheScreenAndSaysWho() async throws {
        let (desk, runtime, screen, laptopPath) = try await remoteLockSetUp()
        let vault = try Vault.open(at: laptopPath)
        try await desk.send(.lock, to: [try vault.deviceID()])
        try await EndToEndSyncTests.syncSucceeds(desk)
        screen.pendingInput = [.key(.character("s"))]
        try await turn(runtime) { runtime.state.isLocked }
        runtime.turn(waitingAtMost: 0)
        XCTAssertTrue(screen.frame.text.contains("Locked from desk at"), screen.frame.text)
    }

    /// A `coffer sync --unlock` beside the screen handles the lock (unlocked after it was sent, it
    /// ignores it itself): the screen, unlocked before, still locks when it sees the vault change.
    @MainActor
    func testALockHandledByAnotherProcessOfTheVaultStillLocksTheScreen() async throws {
        let (desk, runtime, screen, laptopPath) = try await remoteLockSetUp()
        let beside = try Vault.open(at: laptopPath)
        try await desk.send(.lock, to: [try beside.deviceID()])
        try await EndToEndSyncTests.syncSucceeds(desk)
        try await Task.sleep(nanoseconds: 5_000_000)
        try await beside.unlock(passphrase: SecureBuffer(copying: Array(Self.remotePassphrase.utf8)))
        try await EndToEndSyncTests.syncSucceeds(try XCTUnwrap(try SyncEngine.forAccount(of: beside)))
        let besideLocked = await beside.isLocked
        XCTAssertFalse(besideLocked, "unlocked after the lock was sent")
        try await turn(runtime) { runtime.state.isLocked }
        runtime.turn(waitingAtMost: 0)
        XCTAssertTrue(screen.frame.text.contains("Locked from desk at"), screen.frame.text)
    }
}
