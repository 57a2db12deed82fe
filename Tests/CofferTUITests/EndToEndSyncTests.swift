import CofferCore
import CofferSync
import Foundation
import CofferTestSupport
import XCTest

/// The real binary in tmux on a device that shares a vault with another through the test Kinto:
/// a conflict shows while locked, the unlock merges it, `s` syncs, and the other device converges.
final class EndToEndSyncTests: XCTestCase {
    static let passphrase = "correct horse"

    func testConflictShownWhileLockedIsMergedOnUnlockAndReachesTheOtherDevice() async throws {
        let server = try Self.kintoURL()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-e2e-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let user = "e2e-\(UUID().uuidString.lowercased())"
        let password = "pw-\(UUID().uuidString)"
        try await KintoClient.createAccount(server: server, user: user, password: password)
        let account = SyncAccount(server: server, user: user, password: password)
        let kdf = KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations)

        // Device A: a vault with two items, pushed.
        let a = try Vault.create(at: directory.appendingPathComponent("a.db").path,
                                 passphrase: SecureBuffer(copying: Array(Self.passphrase.utf8)), kdf: kdf)
        try account.save(to: a.database)
        let shared = try await a.add(Item(title: "Shared", entry: Entry(username: "ann"), created: .now()))
        let doomed = try await a.add(Item(title: "Doomed", created: .now()))
        let engineA = try XCTUnwrap(try SyncEngine.forAccount(of: a))
        try await Self.syncSucceeds(engineA)

        // Device B joins, then both edit the shared item; A's edit reaches the server first.
        let bPath = directory.appendingPathComponent("b.db").path
        let b = try await Self.join(at: bPath, account: account, passphrase: Self.passphrase)
        let engineB = try XCTUnwrap(try SyncEngine.forAccount(of: b))
        try await Self.syncSucceeds(engineB)
        var onB = try await b.item(shared.id)
        onB.title = "Shared (edited on B)"
        try await b.update(onB)
        await b.lock()
        var onA = try await a.item(shared.id)
        onA.entry.username = "ann-from-a"
        try await a.update(onA)
        try await Self.syncSucceeds(engineA)

        // B in the screen: the sync on start finds the conflict while locked.
        let tmux = try Tmux(command: "env -u NO_COLOR XDG_CONFIG_HOME=/nonexistent LANG=C.UTF-8 TERM=tmux-256color '\(EndToEndTests.binary)' "
                            + "--vault '\(bPath)'; echo \"EXIT=$?\"; sleep 60")
        try expect(tmux, "is locked")
        try expect(tmux, "SYNC_LOCKED", timeout: 20)
        XCTAssertTrue(tmux.screen.contains("⚠"), tmux.screen)

        try tmux.type(Self.passphrase)
        try tmux.send("Enter")
        try expect(tmux, "Shared (edited on B)", timeout: 20)
        try expect(tmux, "⚑", timeout: 20)

        // Add an item and delete another, then sync with `s`.
        try tmux.send("n")
        try expect(tmux, "New item · Login")
        try tmux.type("Added in the screen")
        try tmux.send("Enter")
        try expect(tmux, "Saved “Added in the screen”")
        try tmux.send("Escape")
        try expect(tmux, "3 items")
        try tmux.send("/")
        try tmux.type("Doomed")
        try expect(tmux, "1 of")
        try tmux.send("Enter")
        try tmux.send("d")
        try expect(tmux, "to the trash?")
        try tmux.send("y")
        try tmux.send("Escape")
        try tmux.send("s")
        try expect(tmux, "0 pending", timeout: 20)
        try tmux.send("q")
        try expect(tmux, "EXIT=0")

        // A converges on B's merge, the new item and the deletion (an item in the trash).
        try await Self.syncSucceeds(engineA)
        let listed = try await a.listItems().compactMap(\.item)
        let merged = listed.first { $0.id == shared.id }
        XCTAssertEqual(merged?.title, "Shared (edited on B)")
        XCTAssertEqual(merged?.entry.username, "ann-from-a")
        XCTAssertTrue(listed.contains { $0.title == "Added in the screen" })
        XCTAssertNotNil(listed.first { $0.id == doomed.id }?.trashed, "the deletion reached A, in its trash (issue 43)")
    }

    func expect(_ tmux: Tmux, _ text: String, timeout: TimeInterval = 10,
                        file: StaticString = #filePath, line: UInt = #line) throws {
        let (found, screen) = tmux.wait(for: text, timeout: timeout)
        if !found {
            XCTFail("“\(text)” did not appear; the screen shows:\n\(screen)", file: file, line: line)
            throw Stop()
        }
    }

    /// Ends the test after a failure already reported.
    struct Stop: Error {}

    /// The test Kinto (`make test` starts it): without it this test fails.
    static func kintoURL(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try TestKinto.url(file: file, line: line)
    }

    /// A new vault at `path` made from the account's keystore on the server (what `coffer join`
    /// does), with the account saved in it; left unlocked.
    static func join(at path: String, account: SyncAccount, passphrase: String,
                     deviceName: String = Vault.defaultDeviceName) async throws -> Vault {
        let client = KintoClient(server: account.server, credentials: account.credentials)
        guard case .changes(let keystores, _) = try await client.fetchChanges(collection: .keystores, since: nil),
              let keystoreData = keystores.first else {
            XCTFail("no keystore on the server")
            throw Stop()
        }
        let vault = try Vault.join(at: path, keystore: try JSONDecoder().decode(KeystoreRecord.self, from: keystoreData),
                                   passphrase: SecureBuffer(copying: Array(passphrase.utf8)), deviceName: deviceName)
        try account.save(to: vault.database)
        return vault
    }

    static func syncSucceeds(_ engine: SyncEngine, file: StaticString = #filePath, line: UInt = #line) async throws {
        let report = await engine.sync()
        XCTAssertNil(report.error, report.message ?? "", file: file, line: line)
    }
}
