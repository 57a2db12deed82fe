import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// A server that removes items (issue 41, finding 3b). A removal is a record a key holder sealed
/// (`RemovalSealing`), kept on the server; a plain Kinto `DELETE` — all a server can do — is
/// refused by every device holding the item, which sends it again. A sealed removal waits beside
/// the item until an unlocked sync has authenticated it. Real Kinto, real vault files, writes with
/// the account's own credentials.
final class SyncMaliciousRemovalTests: KintoAccountTestCase {
    func testAPlainDeleteIsRefusedAndTheItemGoesBackToTheServer() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Bank", username: "ann", password: "the real one")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        _ = try await raw.request("DELETE", "buckets/default/collections/items/records/\(item.id)")

        // Refused while locked: a plain tombstone carries nothing a key holder wrote.
        await b.lock()
        let report = await b.sync()
        XCTAssertEqual(report.refused, 1, report.message ?? "")
        XCTAssertEqual(report.error, .forged)
        let onServer = try await raw.ids("items")
        XCTAssertEqual(onServer, [item.id], "b sent the item again")
        try await b.unlock()
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.entry.password, "the real one")

        let onA = await a.sync()
        XCTAssertNil(onA.error, "a takes the same version back without a word: \(onA.message ?? "")")
        let itemsOnA = try await a.items()
        XCTAssertEqual(itemsOnA[item.id]?.entry.password, "the real one")
        for device in [a, b] {
            let again = await device.sync()
            XCTAssertNil(again.error, "\(device.name), settled: \(again.message ?? "")")
            XCTAssertEqual(again.uploaded, 0, device.name)
        }
        try await assertConverged([a, b])
    }

    func testASealedRemovalWaitsForTheUnlockThenRemovesTheItem() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Old", password: "gone soon")
        let kept = try await a.add("Kept", password: "stays")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await a.remove(item.id)
        await a.syncExpectingSuccess()

        let onServer = try await raw.record("items", item.id)
        XCTAssertEqual(onServer["deleted"] as? Bool, true, "a removal is a record the server keeps")
        XCTAssertFalse((onServer["encrypted"] as? String ?? "").isEmpty, "sealed")
        XCTAssertNil(onServer["origins"], "nothing of the item is left in it")

        await b.lock()
        let locked = await b.sync()
        XCTAssertNil(locked.error, locked.message ?? "")
        try await b.unlock()
        let whileWaiting = try await b.items()
        XCTAssertNotNil(whileWaiting[item.id], "a locked device keeps the item until it can check the removal")
        await b.lock()
        try await b.unlock()
        let unlocked = await b.sync()
        XCTAssertNil(unlocked.error, unlocked.message ?? "")
        let items = try await b.items()
        XCTAssertNil(items[item.id], "authenticated: removed")
        XCTAssertEqual(items[kept.id]?.entry.password, "stays")
        for device in [a, b] {
            let again = await device.sync()
            XCTAssertNil(again.error, "\(device.name): \(again.message ?? "")")
            XCTAssertEqual(again.uploaded, 0, device.name)
        }
        try await assertConverged([a, b])
    }

    /// Another item's genuine removal moved under this item's id, and bytes that are no removal:
    /// neither removes anything.
    func testAForeignOrGarbageRemovalIsRefused() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let removed = try await a.add("Removed", password: "r")
        let target = try await a.add("Target", password: "target's")
        let other = try await a.add("Other", password: "other's")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await a.remove(removed.id)
        await a.syncExpectingSuccess()
        try await raw.put("items", target.id, try await raw.record("items", removed.id))
        try await raw.put("items", other.id, ["deleted": true,
                                              "encrypted": SyncMaliciousKeystoreTests.envelopeOfRandomBytes(revisionAhead: 5_000)])

        let report = await b.sync()
        XCTAssertEqual(report.refused, 2, report.message ?? "")
        XCTAssertEqual(report.error, .forged)
        let items = try await b.items()
        XCTAssertNil(items[removed.id], "the genuine removal holds")
        XCTAssertEqual(items[target.id]?.entry.password, "target's")
        XCTAssertEqual(items[other.id]?.entry.password, "other's")
        let onA = await a.sync()
        XCTAssertNil(onA.error, onA.message ?? "")
        let itemsOnA = try await a.items()
        XCTAssertEqual(itemsOnA[target.id]?.entry.password, "target's")
        try await assertConverged([a, b])
    }

    /// An item edited over its removal comes back; the server then serves the removal again (a
    /// replay): it is older than the version that came back, and removes nothing.
    func testAReplayedRemovalDoesNotRemoveTheItemThatCameBack() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Shop", password: "first")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await a.remove(item.id)
        _ = try await b.edit(item.id) { $0.entry.password = "edited on b, offline" }
        await a.syncExpectingSuccess()
        let removal = try await raw.record("items", item.id)
        await b.syncExpectingSuccess()  // b's edit stands against the removal: the item comes back
        await a.syncExpectingSuccess()
        let onA = try await a.items()
        XCTAssertEqual(onA[item.id]?.entry.password, "edited on b, offline")

        try await raw.put("items", item.id, removal)
        let report = await a.sync()
        XCTAssertEqual(report.rolledBack, 1, report.message ?? "")
        let afterReplay = try await a.items()
        XCTAssertEqual(afterReplay[item.id]?.entry.password, "edited on b, offline", "the replayed removal removed nothing")
        _ = await b.sync()
        _ = await a.sync()
        try await assertConverged([a, b])
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.entry.password, "edited on b, offline")
    }

    /// Two devices removing the same item settle on one removal, and an edit made after a removal
    /// was sent goes up over the record the server keeps (an update, not a create that the
    /// server would refuse for good).
    func testRemovalsMeetAndAnEditAfterOursGoesUpOverIt() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let both = try await a.add("Both", password: "x")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await a.remove(both.id)
        try await b.remove(both.id)
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        let onA = try await a.items()
        XCTAssertNil(onA[both.id])
        let onB = try await b.items()
        XCTAssertNil(onB[both.id])
        let removal = try await raw.record("items", both.id)
        XCTAssertEqual(removal["deleted"] as? Bool, true)
        try await assertConverged([a, b])
    }
}
