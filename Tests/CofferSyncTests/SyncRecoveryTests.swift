import CofferCore
@testable import CofferSync
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The harder cases of Firefox for iOS's sync state machine against the real server: a passphrase changed on another device, an
/// item that arrives before its key, a server that lost its data, and a large first sync.
final class SyncRecoveryTests: XCTestCase {
    var server: TestServer!
    var credentials: KintoCredentials!
    var directory: URL!

    override func setUp() async throws {
        server = try TestServer.require()
        credentials = try await server.makeAccount()
        directory = try temporaryDirectory(self)
    }

    func testPassphraseChangedOnOneDeviceReachesTheOther() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        let item = try await a.add("Before", password: "p0")
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)

        try await a.vault.changePassphrase(to: secret("new passphrase"), kdf: Device.fastKDF)
        let addedOnB = try await b.add("Added on B while A changed its passphrase", password: "pb")
        await a.syncExpectingSuccess()
        // B is still unlocked with the old passphrase: its vault key opens the new keystore too.
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        try await assertConverged([a, b])

        await b.lock()
        do {
            try await b.unlock()
            XCTFail("the old passphrase must no longer open B")
        } catch CoreError.wrongPassphrase {}
        try await b.unlock("new passphrase")
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.entry.password, "p0")
        XCTAssertEqual(onB[addedOnB.id]?.entry.password, "pb")
    }

    func testPassphraseChangeReachesALockedDeviceWithItsOwnKeystoreChange() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        let addedOnB = try await b.add("New on B", password: "pb")
        await b.lock()
        try await a.vault.changePassphrase(to: secret("new passphrase"), kdf: Device.fastKDF)
        await a.syncExpectingSuccess()

        let locked = await b.sync()
        XCTAssertEqual(locked.error, .syncLocked, "two keystore versions wait for an unlock")
        // Either passphrase opens B now; the new one is what the user knows from A.
        try await b.unlock("new passphrase")
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        try await assertConverged([a, b])
        let onA = try await a.items()
        XCTAssertEqual(onA[addedOnB.id]?.entry.password, "pb")
        await b.lock()
        try await b.unlock("new passphrase")
    }

    func testItemArrivingBeforeItsKeyWaitsAndOpensLater() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        // A and B both add: their keystores conflict. B is locked, so its keystore waits; its item goes up.
        _ = try await a.add("From A")
        await a.syncExpectingSuccess()
        let early = try await b.add("From B, key held back")
        await b.lock()
        let locked = await b.sync()
        XCTAssertEqual(locked.error, .syncLocked)

        await a.syncExpectingSuccess()
        let listed = try await a.vault.listItems().first { $0.id == early.id }
        XCTAssertEqual(listed?.state, .waitingForKey, "listed, neither dropped nor reported corrupt")

        try await b.unlock()
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        let opened = try await a.items()[early.id]
        XCTAssertEqual(opened?.title, "From B, key held back")
        try await assertConverged([a, b])
    }

    func testServerThatLostItsDataGetsEverythingBack() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        let items = [try await a.add("One"), try await a.add("Two"), try await a.add("Three")]
        await a.syncExpectingSuccess()
        // The server loses the account's bucket (a restore from an old backup, a wiped database).
        try await deleteDefaultBucket()
        try await a.edit(items[0].id) { $0.title = "One, edited after the loss" }
        let report = await a.sync()
        XCTAssertNil(report.error, report.message ?? "")
        XCTAssertEqual(try a.status().allPendingChanges, 0)

        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        let onB = try await b.items()
        XCTAssertEqual(Set(onB.keys), Set(items.map(\.id)), "nothing was lost")
        XCTAssertEqual(onB[items[0].id]?.title, "One, edited after the loss")
        try await assertConverged([a, b])
    }

    func testTenThousandItemFirstSync() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        let now = a.clock.timestamp
        let items = (0..<10_000).map { index in
            Item(title: "Item \(index)", origins: ["site\(index).example"], tags: ["bulk"],
                 entry: Entry(username: "user\(index)", password: "pw-\(index)"), created: now)
        }
        try await a.vault.addAll(items)
        let pushed = await a.sync()
        XCTAssertNil(pushed.error, pushed.message ?? "")
        XCTAssertEqual(pushed.uploaded, 10_001)
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        XCTAssertEqual(try b.status().items, 10_000)
        XCTAssertEqual(try b.status().allPendingChanges, 0)
        let onB = try await b.items()
        XCTAssertEqual(onB[items[9_999].id]?.entry.password, "pw-9999")
        try await assertConverged([a, b])
    }

    /// Deletes the account's default bucket through the API, as a server losing its data would.
    private func deleteDefaultBucket() async throws {
        var request = URLRequest(url: server.url.appendingPathComponent("buckets/default"))
        request.httpMethod = "DELETE"
        let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
        request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
    }
}
