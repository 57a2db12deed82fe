import CofferCore
import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// The real binary's screen in tmux, locked by a `lock` message from another device of the account.
extension EndToEndSyncTests {
    func testTheScreenLocksWhenAnotherDeviceSendsLock() async throws {
        let server = try Self.kintoURL()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-e2e-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let account = SyncAccount(server: server, user: "e2e-lock-\(UUID().uuidString.lowercased())", password: "pw-\(UUID().uuidString)")
        try await KintoClient.createAccount(server: server, user: account.user, password: account.password)
        let desk = try Vault.create(at: directory.appendingPathComponent("desk.db").path,
                                    passphrase: SecureBuffer(copying: Array(Self.passphrase.utf8)),
                                    kdf: .fresh(memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations),
                                    deviceName: "desk")
        try account.save(to: desk.database)
        let deskEngine = try XCTUnwrap(try SyncEngine.forAccount(of: desk))
        try await Self.syncSucceeds(deskEngine)
        let laptopPath = directory.appendingPathComponent("laptop.db").path
        let laptop = try await Self.join(at: laptopPath, account: account, passphrase: Self.passphrase, deviceName: "laptop")
        let laptopID = try laptop.deviceID()
        await laptop.lock()

        let tmux = try Tmux(command: "env -u NO_COLOR XDG_CONFIG_HOME=/nonexistent LANG=C.UTF-8 TERM=tmux-256color '\(EndToEndTests.binary)' "
                            + "--vault '\(laptopPath)'; echo \"EXIT=$?\"; sleep 60")
        try expect(tmux, "is locked")
        try tmux.type(Self.passphrase)
        try tmux.send("Enter")
        try expect(tmux, "0 items", timeout: 20)
        // The unlock's sync publishes the laptop's record; then the desk can address it.
        let deadline = Date().addingTimeInterval(20)
        while try await !deskEngine.devices().contains(where: { $0.id == laptopID && $0.isVerified }), Date() < deadline {
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        try await deskEngine.send(.lock, to: [laptopID])
        try await Self.syncSucceeds(deskEngine)
        try tmux.send("s")
        try expect(tmux, "Locked from desk at", timeout: 20)
        XCTAssertTrue(tmux.screen.contains("is locked"), tmux.screen)
        try tmux.send("Escape")
        try expect(tmux, "EXIT=0")
    }
}
