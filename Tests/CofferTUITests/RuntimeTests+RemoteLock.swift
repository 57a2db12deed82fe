import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// `device lock` reaching an unlocked screen: the runtime with a real vault, the real sync engine
/// and the test Kinto; another vault of the account sends the lock.
extension RuntimeTests {
    @MainActor
    func testALockFromAnotherDeviceLocksTheScreenAndSaysWho() async throws {
        let server = try EndToEndSyncTests.kintoURL()
        let account = SyncAccount(server: server, user: "lock-\(UUID().uuidString.lowercased())", password: "pw-\(UUID().uuidString)")
        try await KintoClient.createAccount(server: server, user: account.user, password: account.password)
        let passphrase = "pass phrase"
        let kdf = KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: 3)

        let desk = try Vault.create(at: directory.appendingPathComponent("desk.db").path,
                                    passphrase: SecureBuffer(copying: Array(passphrase.utf8)), kdf: kdf, deviceName: "desk")
        try account.save(to: desk.database)
        let deskEngine = try XCTUnwrap(try SyncEngine.forAccount(of: desk))
        try await EndToEndSyncTests.syncSucceeds(deskEngine)
        let laptopPath = directory.appendingPathComponent("laptop.db").path
        let joined = try await EndToEndSyncTests.join(at: laptopPath, account: account, passphrase: passphrase, deviceName: "laptop")
        try await EndToEndSyncTests.syncSucceeds(try XCTUnwrap(try SyncEngine.forAccount(of: joined)))
        await joined.lock()

        // The laptop's screen, unlocked, syncing with the real engine.
        let vault = try Vault.open(at: laptopPath)
        let engine = try XCTUnwrap(try SyncEngine.forAccount(of: vault))
        let services = ScreenServices(runSync: { _, progress in await engine.sync(progress: progress) }, clipboard: .terminalOnly)
        let state = ScreenState(vaultPath: laptopPath, summary: VaultSummary(try vault.database.status()),
                                settings: Fixtures.settings, now: Date())
        let screen = MemoryScreen()
        let runtime = Runtime(state: state, vault: vault, screen: screen, services: services, options: ScreenOptions())
        runtime.dispatch(.started)
        screen.pendingInput = passphrase.map { .key(.character($0)) } + [.key(.enter)]
        try await turn(runtime) { !runtime.state.isLocked && runtime.state.sync.running == nil }
        XCTAssertFalse(runtime.state.isLocked)

        try await deskEngine.send(.lock, to: [try vault.deviceID()])
        try await EndToEndSyncTests.syncSucceeds(deskEngine)
        screen.pendingInput = [.key(.character("s"))]
        try await turn(runtime) { runtime.state.isLocked }
        let isLocked = await vault.isLocked
        XCTAssertTrue(isLocked, "the vault dropped its keys")
        runtime.turn(waitingAtMost: 0)
        XCTAssertTrue(screen.frame.text.contains("Locked from desk at"), screen.frame.text)
    }
}
