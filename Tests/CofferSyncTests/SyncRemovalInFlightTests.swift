import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// An item removed while a sync (another process's) was pushing its creation: the removal was
/// acknowledged (`coffer rm` said so), so the item must not come back whichever way that sync's
/// answer, or another sync's fetch of the creation, meets the removal. A multi-process run found
/// it back on both devices (seed 220): the removal of an item no server answer had confirmed
/// deleted its pending creation outright, and the answer then made the creation stable.
final class SyncRemovalInFlightTests: XCTestCase {
    var server: TestServer!
    var a: Device!
    var b: Device!
    var client: KintoClient!
    var credentials: KintoCredentials!

    override func setUp() async throws {
        server = try TestServer.require()
        credentials = try await server.makeAccount()
        let directory = try temporaryDirectory(self)
        a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        client = KintoClient(server: server.url, credentials: credentials, timeout: 10)
    }

    /// The slow sync's creation reaches the server, the item is removed, then its answer is applied.
    func testTheAnswerToACreationRemovedMeanwhileSendsTheRemoval() async throws {
        let (item, slow, pushed) = try await pushCreationThenRemove()
        try ApplyStep.run(pushed.acknowledgements, slow)
        try await assertGoneEverywhere(item.id)
    }

    /// The slow sync's creation reaches the server, the item is removed, another sync fetches the
    /// creation before the slow one applies its answer.
    func testAFetchOfACreationRemovedMeanwhileKeepsTheRemoval() async throws {
        let (item, slow, pushed) = try await pushCreationThenRemove()
        let other = SyncContext(vault: a.vault, client: client)
        _ = try await FetchStep.run(.items, other)
        let afterFetch = try await a.items()
        XCTAssertNil(afterFetch[item.id], "the fetch brought the removed item back")
        try ApplyStep.run(pushed.acknowledgements, slow)
        try await assertGoneEverywhere(item.id)
    }

    /// The slow sync's creation reaches the server, the item is removed, another sync pushes the
    /// removal (nothing to delete, as far as it knows), then the slow sync applies its answer.
    func testARemovalSentBeforeTheCreationsAnswerStillHolds() async throws {
        let (item, slow, pushed) = try await pushCreationThenRemove()
        await a.syncExpectingSuccess()
        try ApplyStep.run(pushed.acknowledgements, slow)
        try await assertGoneEverywhere(item.id)
    }

    /// An item removed before any sync never reaches the server, and leaves nothing pending.
    func testAnItemRemovedBeforeAnySyncLeavesNothing() async throws {
        let item = try await a.add("Never sent")
        try await a.remove(item.id)
        let afterRemoval = try await a.items()
        XCTAssertNil(afterRemoval[item.id])
        await a.syncExpectingSuccess()
        XCTAssertEqual(try a.status().allPendingChanges, 0)
        let records = try await RawAccount(server: server, credentials: credentials).records("items")
        XCTAssertFalse(records.contains { $0["id"] as? String == item.id }, "sent to the server")
    }

    /// A slow sync pushes a new item's creation (the server takes it), then the item is removed
    /// before that sync applies the answer.
    private func pushCreationThenRemove() async throws -> (Item, SyncContext, PushStep.Outcome) {
        let item = try await a.add("Short-lived")
        let slow = SyncContext(vault: a.vault, client: client)
        let pushed = try await PushStep.run(.items, slow)
        XCTAssertEqual(pushed.acknowledgements.count, 1, "the creation was accepted")
        try await a.remove(item.id)
        return (item, slow, pushed)
    }

    private func assertGoneEverywhere(_ id: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let afterAnswer = try await a.items()
        XCTAssertNil(afterAnswer[id], "back on a after the answer", file: file, line: line)
        await a.syncExpectingSuccess(file: file, line: line)
        await b.syncExpectingSuccess(file: file, line: line)
        await a.syncExpectingSuccess(file: file, line: line)
        let onA = try await a.items(), onB = try await b.items()
        XCTAssertNil(onA[id], "back on a", file: file, line: line)
        XCTAssertNil(onB[id], "on b", file: file, line: line)
        XCTAssertEqual(try a.status().allPendingChanges, 0, "nothing stays pending on a", file: file, line: line)
        try await assertConverged([a, b], file: file, line: line)
    }
}
