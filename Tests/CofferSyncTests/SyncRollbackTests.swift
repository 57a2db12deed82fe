import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// A server that serves an older version of a record as if it were new — rolled back from a
/// backup, or replaying a record to undo a change. Each record carries its lineage (revision and
/// parent digest) in the clear, bound to the ciphertext, so devices notice: the older version
/// never replaces theirs, it is merged with theirs (nothing either side holds is lost) and the
/// sync reports it. Real Kinto; the replay is written straight to the account.
final class SyncRollbackTests: KintoAccountTestCase {
    func testReplayedOldItemIsRefusedAndMergedWithOurs() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Bank", username: "ann", password: "old password")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let old = try await raw.record("items", item.id)
        try await a.edit(item.id) { $0.entry.password = "new password" }
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()

        try await raw.put("items", item.id, old)
        let report = await b.sync()
        XCTAssertEqual(report.rolledBack, 1)
        XCTAssertEqual(report.error, .rollback)
        XCTAssertTrue(report.message?.contains("older") == true, report.message ?? "")
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.entry.password, "new password", "the replay did not undo the change")
        XCTAssertTrue(onB[item.id]?.history.contains { String(describing: $0.patch).contains("old password") } == true,
                      "what the server sent is kept in history")
        let reviewed = try await b.vault.reviews().map(\.id)
        XCTAssertEqual(reviewed, [item.id], "the merge is flagged for review")

        // B's merge, made from the replayed version, is newer than everything: A takes it.
        let onA = await a.sync()
        XCTAssertNil(onA.error, onA.message ?? "")
        XCTAssertEqual(onA.rolledBack, 0)
        try await assertConverged([a, b])
        let itemsOnA = try await a.items()
        XCTAssertEqual(itemsOnA[item.id]?.entry.password, "new password")
        let again = await b.sync()
        XCTAssertNil(again.error, "reported once, not on every sync: \(again.message ?? "")")
    }

    /// Not a rollback: an edit made offline, before another device's later edit, that comes up
    /// after that device removed the item. The two versions are siblings (made from the same
    /// version), and the re-created one carries its maker's earlier clock: the device holding the
    /// removed version must take it without a warning (seed 20250663 of the random histories).
    func testAnOfflineEditPushedOverADeletionIsNoRollback() async throws {
        let (a, b, _) = try await pairOfDevices()
        let c = try await Device.join("c", in: directory, server: server.url, credentials: credentials)
        let item = try await a.add("Shop", username: "ann", password: "first")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        await c.syncExpectingSuccess()

        _ = try await a.edit(item.id) { $0.entry.password = "made offline on a" }
        c.clock.advance(60)
        _ = try await c.edit(item.id) { $0.entry.username = "a minute later on c" }
        await c.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await c.remove(item.id)
        await c.syncExpectingSuccess()

        await a.syncExpectingSuccess()  // a's edit stands against the removal: the item comes back
        let report = await b.sync()
        XCTAssertEqual(report.rolledBack, 0, report.message ?? "")
        XCTAssertNil(report.error, report.message ?? "")
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.entry.password, "made offline on a", "b took a's re-created version")
        let reviewed = try await b.vault.reviews().map(\.id)
        XCTAssertEqual(reviewed, [], "nothing to review: nothing was merged")
        await c.syncExpectingSuccess()
        try await assertConverged([a, b, c])
    }

    /// The same with a version in between: the offline edit is a cousin of the removed version
    /// (made from its grandparent), which nothing in the two records tells from an old version
    /// served again. The re-creating device, unlocked, seals its edit again newer than the fetch
    /// that brought the tombstone. Running clocks (as real devices have), with pauses longer than
    /// the `Date` header's one-second grain, so the clocks' order is the real one.
    func testAnOfflineEditPushedOverTheRemovalOfALaterVersionIsSealedNewer() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials, clock: .live())
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials, clock: .live())
        let c = try await Device.join("c", in: directory, server: server.url, credentials: credentials, clock: .live())
        let item = try await a.add("Shop", username: "ann", password: "first")
        for device in [a, b, c] { await device.syncExpectingSuccess() }

        _ = try await c.edit(item.id) { $0.entry.password = "made offline on c" }
        try await Task.sleep(nanoseconds: 1_200_000_000)
        _ = try await b.edit(item.id) { $0.entry.username = "edited on b" }
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        _ = try await a.edit(item.id) { $0.title = "Shop (a, on b's)" }
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()  // b holds a's version, made from b's
        try await a.remove(item.id)
        await a.syncExpectingSuccess()
        try await Task.sleep(nanoseconds: 1_200_000_000)

        await c.syncExpectingSuccess()  // c's edit stands against the removal, sealed again
        let report = await b.sync()
        XCTAssertEqual(report.rolledBack, 0, report.message ?? "")
        XCTAssertNil(report.error, report.message ?? "")
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.entry.password, "made offline on c")
        XCTAssertEqual(onB[item.id]?.title, "Shop", "c's edit, made before b's and a's, was all that survived the removal")
        await a.syncExpectingSuccess()
        try await assertConverged([a, b, c])
    }

    func testReplayWhileLockedOverwritesNothingAndWaitsForTheUnlock() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Mail", password: "first")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let old = try await raw.record("items", item.id)
        try await a.edit(item.id) { $0.title = "Mail (work)" }
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let currentRecord = try await raw.record("items", item.id)
        let current = try XCTUnwrap(currentRecord["encrypted"] as? String)

        await b.lock()
        try await raw.put("items", item.id, old)
        let locked = await b.sync()
        XCTAssertEqual(locked.rolledBack, 1)
        XCTAssertEqual(locked.error, .rollback)
        XCTAssertTrue(locked.message?.contains("unlock") == true, locked.message ?? "")
        let stable = try b.vault.database.read { try VaultDatabase.stableItem(item.id, in: $0) }
        XCTAssertEqual(stable?.encrypted, current, "B's stable version is untouched")
        XCTAssertEqual(try b.status().conflicts, 1, "shown as a conflict (⚠) until the unlock")
        let stillReplayed = try await raw.record("items", item.id)["encrypted"] as? String
        XCTAssertEqual(stillReplayed, old["encrypted"] as? String, "nothing pushed over it while locked")

        try await b.unlock()
        let unlocked = await b.sync()
        XCTAssertNil(unlocked.error, unlocked.message ?? "")
        XCTAssertEqual(unlocked.merged, 1)
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.title, "Mail (work)")
        await a.syncExpectingSuccess()
        try await assertConverged([a, b])
    }

    /// An old keystore replayed after a passphrase change must not make the old passphrase work again.
    func testReplayedOldKeystoreDoesNotBringBackTheOldPassphrase() async throws {
        let (a, b, raw) = try await pairOfDevices()
        _ = try await a.add("Anything")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let oldKeystore = try await raw.record("keystores", CollectionName.keystoreID)
        try await a.vault.changePassphrase(to: secret("a brand new passphrase"), kdf: Device.fastKDF)
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()

        try await raw.put("keystores", CollectionName.keystoreID, oldKeystore)
        let report = await b.sync()
        XCTAssertEqual(report.rolledBack, 1)
        await b.lock()
        do {
            try await b.unlock()
            XCTFail("the old passphrase opened B after the replay")
        } catch CoreError.wrongPassphrase {}
        try await b.unlock("a brand new passphrase")

        await a.syncExpectingSuccess()
        await a.lock()
        try await a.unlock("a brand new passphrase")
        try await assertConverged([a, b])
    }

    /// B's title change reaches the server but its acknowledgement is lost; A edits the title on
    /// top of it. The lineage says A's version was made from B's, so A's edit wins outright on
    /// B — no merge against B's stale base (which would have kept B's older title), no review.
    /// A title-only change leaves no history entry, so only the lineage can tell.
    func testEditOnTopOfAPushWhoseAcknowledgementWasLostWins() async throws {
        let (a, b, _) = try await pairOfDevices()
        let item = try await a.add("T0", password: "p")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        b.use(server: proxy.url, credentials: credentials)

        try await b.edit(item.id) { $0.title = "T1 from B" }
        try await proxy.setFault(.resetAfter, match: "/batch")
        let lost = await b.sync()
        XCTAssertEqual(lost.error, .network, lost.message ?? "")
        await a.syncExpectingSuccess()
        let seenByA = try await a.items()
        XCTAssertEqual(seenByA[item.id]?.title, "T1 from B", "the write reached the server")
        try await a.edit(item.id) { $0.title = "T2 from A" }
        await a.syncExpectingSuccess()

        let report = await b.sync()
        XCTAssertNil(report.error, report.message ?? "")
        XCTAssertEqual(report.merged, 0, "nothing to merge: A's version already holds B's change")
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.title, "T2 from A")
        let reviews = try await b.vault.reviews()
        XCTAssertTrue(reviews.isEmpty)
        await a.syncExpectingSuccess()
        try await assertConverged([a, b])
        let onA = try await a.items()
        XCTAssertEqual(onA[item.id]?.title, "T2 from A", "A's later edit survived")
    }
}
