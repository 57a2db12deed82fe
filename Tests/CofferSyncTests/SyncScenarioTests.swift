import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// The scenarios of Lockbox's sync design with two and three vault files on one account of the real Kinto.
final class SyncScenarioTests: XCTestCase {
    var server: TestServer!
    var credentials: KintoCredentials!
    var directory: URL!

    override func setUp() async throws {
        server = try TestServer.require()
        credentials = try await server.makeAccount()
        directory = try temporaryDirectory(self)
    }

    func pair() async throws -> (Device, Device) {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        return (a, b)
    }

    func testFirstDevicePushesAndSecondJoins() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        let item = try await a.add("Mail ✉️", username: "ann", password: "s3cret", tags: ["work"])
        let report = await a.sync()
        XCTAssertNil(report.error, report.message ?? "")
        XCTAssertEqual(report.uploaded, 2, "the item and the keystore")
        XCTAssertEqual(try a.status().allPendingChanges, 0)
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        let items = try await b.items()
        XCTAssertEqual(items[item.id]?.entry.password, "s3cret")
        try await assertConverged([a, b])
    }

    func testSeedScenarioTitleOnOneDeviceTagsOnTheOther() async throws {
        let (a, b) = try await pair()
        let item = try await a.add("Bank", username: "ann", tags: ["money"])
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await a.edit(item.id) { $0.title = "Bank (old account)" }
        try await b.edit(item.id) { $0.tags = ["money", "important"] }
        await a.syncExpectingSuccess()
        let merged = await b.sync()
        XCTAssertNil(merged.error, merged.message ?? "")
        XCTAssertEqual(merged.mergedIDs, [item.id])
        await a.syncExpectingSuccess()
        let result = try await a.items()[item.id]
        XCTAssertEqual(result?.title, "Bank (old account)")
        XCTAssertEqual(result?.tags, ["money", "important"])
        try await assertConverged([a, b])
        let reviews = try await b.vault.reviews()
        XCTAssertEqual(reviews.map(\.id), [item.id], "the merged item waits for review (⚑)")
        XCTAssertEqual(reviews.first?.conflicts, [
            ItemMerge.FieldConflict(field: .title, local: "Bank", remote: "Bank (old account)", changedOn: .remote,
                                    chosen: .remote),
            ItemMerge.FieldConflict(field: .tags, lists: ItemMerge.ListValues(local: ["money", "important"], remote: ["money"],
                                                                               combined: ["money", "important"]),
                                    changedOn: .local),
        ], "no field changed on both sides: each row says which device's change the merge took")
        try await b.vault.resolveReview(item.id, choosing: [:])
        let remaining = try await b.vault.reviews()
        XCTAssertEqual(remaining, [], "accepting clears ⚑")
    }

    /// Issue 10: username changed on one device, password on the other. The merge writes each old
    /// value into history once, and its review lists both fields so accepting clears ⚑.
    func testOneSideChangesOnEachDeviceAreReviewableAndRecordedInHistoryOnce() async throws {
        let (a, b) = try await pair()
        let item = try await a.add("Mail", username: "u0", password: "p0")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await a.edit(item.id) { $0.entry.password = "p1" }
        try await b.edit(item.id) { $0.entry.username = "u1" }
        await a.syncExpectingSuccess()
        let merged = await b.sync()
        XCTAssertEqual(merged.mergedIDs, [item.id])
        let onB = try await b.vault.item(item.id)
        XCTAssertEqual(onB.entry.username, "u1")
        XCTAssertEqual(onB.entry.password, "p1")
        XCTAssertEqual(onB.history.filter { $0.patch.objectValue?["username"] == .string("u0") }.count, 1)
        XCTAssertEqual(onB.history.filter { $0.patch.objectValue?["password"] == .string("p0") }.count, 1)
        let review = try await XCTUnwrapAsync(await b.vault.reviews().first)
        XCTAssertEqual(review.conflicts.map(\.field), [.username, .password])
        XCTAssertEqual(review.conflicts.map(\.changedOn), [.local, .remote])
        try await b.vault.resolveReview(item.id, choosing: [:])
        let remaining = try await b.vault.reviews()
        XCTAssertEqual(remaining, [])
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        try await assertConverged([a, b])
    }

    /// The Airmail journal: the later change wins (B's here, three seconds after A's), whoever merges.
    func testSameFieldChangedOnBothSidesKeepsTheLaterAndRecordsTheChoice() async throws {
        // Clocks that run: the devices correct them against the server's, so only real time orders edits.
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials, clock: .live())
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials, clock: .live())
        let item = try await a.add("Shop", password: "one")
        _ = await a.sync()
        _ = await b.sync()
        try await a.edit(item.id) { $0.entry.password = "from-a" }
        try await Task.sleep(nanoseconds: 3_000_000_000)  // beyond either device's estimate error
        try await b.edit(item.id) { $0.entry.password = "from-b" }
        _ = await a.sync()
        _ = await b.sync()
        _ = await a.sync()
        let merged = try await b.items()[item.id]
        XCTAssertEqual(merged?.entry.password, "from-b", "the later change wins")
        let history = try XCTUnwrap(merged?.history)
        XCTAssertEqual(history.first?.patch, .object(["password": .string("from-a")]),
                       "the remote value is the newest history entry: nothing is lost")
        let review = try await XCTUnwrapAsync(await b.vault.reviews().first)
        var row = try XCTUnwrap(review.conflicts.first)
        let (localStamp, remoteStamp) = (try XCTUnwrap(row.localStamp), try XCTUnwrap(row.remoteStamp))
        XCTAssertGreaterThan(localStamp.at, remoteStamp.at, "the review shows B's change as the later")
        XCTAssertNotEqual(localStamp.by, remoteStamp.by, "and each side's device")
        (row.localStamp, row.remoteStamp) = (nil, nil)
        XCTAssertEqual(review.conflicts.count, 1)
        XCTAssertEqual(row, ItemMerge.FieldConflict(field: .password, local: "from-b", remote: "from-a", chosen: .local))
        try await b.vault.resolveReview(item.id, useRemote: [.password])
        let swapped = try await b.vault.item(item.id)
        XCTAssertEqual(swapped.entry.password, "from-a")
        let remaining = try await b.vault.reviews()
        XCTAssertTrue(remaining.isEmpty)
        _ = await b.sync()
        _ = await a.sync()
        try await assertConverged([a, b])
    }

    func testLocalRemoveAgainstRemoteUpdateKeepsTheUpdate() async throws {
        let (a, b) = try await pair()
        let item = try await a.add("Forum", username: "old")
        _ = await a.sync()
        _ = await b.sync()
        try await a.edit(item.id) { $0.entry.username = "new" }
        _ = await a.sync()
        try await b.remove(item.id)
        let report = await b.sync()
        XCTAssertNil(report.error, report.message ?? "")
        let kept = try await b.items()[item.id]
        XCTAssertEqual(kept?.entry.username, "new", "update is favoured over remove")
        XCTAssertEqual(try b.status().allPendingChanges, 0)
        try await assertConverged([a, b])
    }

    func testRemoteRemoveAgainstLocalUpdateRecreatesTheItem() async throws {
        let (a, b) = try await pair()
        let item = try await a.add("Wiki", username: "old")
        _ = await a.sync()
        _ = await b.sync()
        try await a.remove(item.id)
        await a.syncExpectingSuccess()
        try await b.edit(item.id) { $0.entry.username = "kept" }
        let report = await b.sync()
        XCTAssertNil(report.error, report.message ?? "")
        await a.syncExpectingSuccess()
        let recreated = try await a.items()[item.id]
        XCTAssertEqual(recreated?.entry.username, "kept", "the update comes back over the tombstone")
        try await assertConverged([a, b])
    }

    func testBothRemoveLeavesNothing() async throws {
        let (a, b) = try await pair()
        let item = try await a.add("Gone")
        _ = await a.sync()
        _ = await b.sync()
        try await a.remove(item.id)
        try await b.remove(item.id)
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let gone = try await b.items()[item.id]
        XCTAssertNil(gone)
        XCTAssertEqual(try b.status().allPendingChanges, 0)
        try await assertConverged([a, b])
    }

    func testBothAddItemsKeystoreUnion() async throws {
        let (a, b) = try await pair()
        let fromA = try await a.add("Added on A", password: "pa")
        let fromB = try await b.add("Added on B", password: "pb")
        await a.syncExpectingSuccess()
        let report = await b.sync()
        XCTAssertNil(report.error, report.message ?? "")
        await a.syncExpectingSuccess()
        let onA = try await a.items()
        XCTAssertEqual(onA[fromB.id]?.entry.password, "pb")
        let onB = try await b.items()
        XCTAssertEqual(onB[fromA.id]?.entry.password, "pa")
        try await assertConverged([a, b])
    }

    func testLockedSyncAppliesEverythingElseAndEndsSyncLocked() async throws {
        let (a, b) = try await pair()
        let shared = try await a.add("Shared", username: "u")
        _ = await a.sync()
        _ = await b.sync()
        try await b.edit(shared.id) { $0.title = "Shared (B)" }
        await b.lock()
        try await a.edit(shared.id) { $0.entry.username = "u-from-a" }
        let extra = try await a.add("Only on A")
        await a.syncExpectingSuccess()

        let locked = await b.sync()
        XCTAssertEqual(locked.error, .syncLocked)
        XCTAssertEqual(locked.conflictsWaiting, 1)
        let status = try b.status()
        XCTAssertEqual(status.conflicts, 1)
        XCTAssertEqual(status.lastError, "SYNC_LOCKED")
        XCTAssertEqual(status.items, 2, "the new item was applied while locked")

        try await b.unlock()
        let applied = try await b.items()[extra.id]
        XCTAssertNotNil(applied, "the non-conflicting item is readable")
        let unlocked = await b.sync()
        XCTAssertNil(unlocked.error, unlocked.message ?? "")
        await a.syncExpectingSuccess()
        let merged = try await a.items()[shared.id]
        XCTAssertEqual(merged?.title, "Shared (B)")
        XCTAssertEqual(merged?.entry.username, "u-from-a")
        try await assertConverged([a, b])
    }

    func testThreeDevicesConverge() async throws {
        let (a, b) = try await pair()
        let c = try await Device.join("c", in: directory, server: server.url, credentials: credentials)
        let item = try await a.add("Three", username: "a", tags: ["x"])
        for device in [a, b, c] { _ = await device.sync() }
        try await a.edit(item.id) { $0.title = "Three (a)" }
        try await b.edit(item.id) { $0.tags = ["x", "y"] }
        try await c.edit(item.id) { $0.origins = ["example.com"] }
        _ = try await c.add("From C")
        for _ in 0..<2 {
            for device in [a, b, c] {
                let report = await device.sync()
                XCTAssertNil(report.error, "\(device.name): \(report.message ?? "")")
            }
        }
        try await assertConverged([a, b, c])
        let merged = try await a.items()[item.id]
        XCTAssertEqual(merged?.title, "Three (a)")
        XCTAssertEqual(merged?.tags, ["x", "y"])
        XCTAssertEqual(merged?.origins, ["example.com"])
    }

    func testNothingToDoSendsOneConditionalRequestPerCollection() async throws {
        let (a, _) = try await pair()
        _ = await a.sync()
        let proxy = try FaultProxy(upstream: server)
        defer { proxy.stop() }
        a.use(server: proxy.url, credentials: credentials)
        let report = await a.sync()
        XCTAssertNil(report.error, report.message ?? "")
        let log = try await proxy.log()
        // items, keystores, and the messages addressed to this device (architecture §9).
        XCTAssertEqual(log.count, 3, "\(log.map { "\($0.method) \($0.path) \($0.status ?? 0)" })")
        XCTAssertEqual(log.compactMap(\.status), [304, 304, 304])
        XCTAssertEqual(log.filter { $0.path.contains("/collections/messages/") }.count, 1, "an idle message poll is one 304")
    }

    // Found by the multi-process histories (`MultiProcessTests`): a long-lived process (the screen)
    // syncing while `coffer add` writes beside it.

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
