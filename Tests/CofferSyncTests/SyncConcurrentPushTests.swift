import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// Two syncs of one vault at once, on the push side: a sync whose push was answered, but which
/// had not applied the answer yet while the other sync stored newer versions, must not write its
/// acknowledgement over them (the marker is past them: they would never come again).
final class SyncConcurrentPushTests: XCTestCase {
    var server: TestServer!
    var a: Device!
    var b: Device!
    var client: KintoClient!

    override func setUp() async throws {
        server = try TestServer.require()
        let credentials = try await server.makeAccount()
        let directory = try temporaryDirectory(self)
        a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        client = KintoClient(server: server.url, credentials: credentials, timeout: 10)
    }

    /// b's slow sync pushes its removal; a's edit re-creates the item; b's other sync takes that
    /// (an update beats a removal); then the slow sync applies its removal.
    func testAnOvertakenRemovalDoesNotDeleteTheVersionThatCameAfter() async throws {
        let item = try await a.add("Kept", password: "first")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()

        try await b.remove(item.id)
        let slow = SyncContext(vault: b.vault, client: client)
        let pushed = try await PushStep.run(.items, slow)
        XCTAssertEqual(pushed.acknowledgements.count, 1)

        _ = try await a.edit(item.id) { $0.entry.password = "edited on a, after b's removal" }
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let taken = try await b.items()
        XCTAssertEqual(taken[item.id]?.entry.password, "edited on a, after b's removal", "the update beat the removal")

        try ApplyStep.run(pushed.acknowledgements, slow)
        let afterApply = try await b.items()
        XCTAssertEqual(afterApply[item.id]?.entry.password, "edited on a, after b's removal",
                       "the overtaken removal deleted the version that came after it")
        await b.syncExpectingSuccess()
        try await assertConverged([a, b])
    }

    /// b's slow sync pushes an edit; its other sync acknowledges it (a lost write, as seen from
    /// there) and then takes a's newer edit; then the slow sync applies its older one.
    func testAnOvertakenEditDoesNotReplaceTheNewerVersion() async throws {
        let item = try await a.add("Mail", password: "first")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()

        _ = try await b.edit(item.id) { $0.entry.password = "from b" }
        let slow = SyncContext(vault: b.vault, client: client)
        let pushed = try await PushStep.run(.items, slow)
        XCTAssertEqual(pushed.acknowledgements.count, 1)
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        _ = try await a.edit(item.id) { $0.entry.password = "from a, made on b's" }
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()

        try ApplyStep.run(pushed.acknowledgements, slow)
        let afterApply = try await b.items()
        XCTAssertEqual(afterApply[item.id]?.entry.password, "from a, made on b's", "an older acknowledgement replaced stable")
        await b.syncExpectingSuccess()
        try await assertConverged([a, b])
        XCTAssertEqual(try b.status().allPendingChanges, 0, "nothing stays pending")
    }
}
