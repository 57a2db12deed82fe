import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// Sync in a long-lived process (the screen) while other processes (`coffer add`) write to the
/// same vault file: found by the multi-process histories (`make reliability`).
final class SyncBesideOtherProcessesTests: XCTestCase {
    var server: TestServer!
    var credentials: KintoCredentials!
    var directory: URL!

    override func setUp() async throws {
        server = try TestServer.require()
        credentials = try await server.makeAccount()
        directory = try temporaryDirectory(self)
    }

    /// The screen unlocked before a `coffer add` beside it saved a new item key; its next sync
    /// meets a keystore changed on another device too and merges the two. The merge must keep
    /// the key the other process saved, or that item can never be opened again — on any device.
    func testAKeystoreMergeKeepsKeysAnotherProcessSavedSinceTheUnlock() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        _ = try await b.add("from b")
        await b.syncExpectingSuccess()  // the server's keystore now differs from A's stable one

        // Another process on A's file (a `coffer add` next to the screen).
        let command = try Vault.open(at: await a.vault.database.path)
        try await command.unlock(passphrase: secret(Device.passphrase))
        let added = try await command.add(Item(title: "from a command", created: .now()))
        await command.lock()

        let report = await a.sync()  // A's long-lived session merges the two keystores
        XCTAssertNil(report.error, report.message ?? "")
        await b.syncExpectingSuccess()
        for device in [a, b] {
            let items = try await device.vault.listItems()
            let entry = items.first { $0.id == added.id }
            XCTAssertEqual(entry?.item?.title, "from a command", "\(device.name): \(String(describing: entry?.state))")
        }
        try await assertConverged([a, b])
    }
}
