import CofferCore
import CofferTestSupport
import Foundation
import GRDB
import XCTest

/// The trash across devices (issue 43), with the built binary and the real Kinto: `rm` on one
/// device lands in the other's trash, a restore there comes back everywhere, an edit beats a trash,
/// and `trash --empty` and the 30-day purge remove for good on every device.
extension SyncCommandTests {
    private func trashed(_ vault: TestVault, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try vault.ok(["trash", "--json"], file: file, line: line).jsonArray(file: file, line: line)
    }

    /// Forgets when the laptop last looked for expired items, as a day passing would (it looks once a day).
    private func forgetTrashCheck(_ vault: TestVault) throws {
        try DatabaseQueue(path: vault.path).write { db in
            try db.execute(sql: "DELETE FROM meta WHERE key = 'trash_checked_at'")
        }
    }

    private func titles(_ listing: [[String: Any]]) -> Set<String> {
        Set(listing.compactMap { $0["title"] as? String })
    }

    private func synced(_ devices: TestVault..., file: StaticString = #filePath, line: UInt = #line) throws {
        for device in devices { assertOK(try device.run(["sync", "--unlock"]), file: file, line: line) }
    }

    /// Two devices of one account, both holding `titles`.
    private func twoDevices(holding items: [String]) throws -> (laptop: TestVault, desktop: TestVault, ids: [String]) {
        let laptop = try makeVault()
        let ids = try items.map { try laptop.add($0, ["--username", "u", "--password", "p-\($0)"]) }
        let account = try signUp(laptop)
        try synced(laptop)
        let desktop = try join(laptop, account)
        XCTAssertEqual(titles(try desktop.list()), Set(items))
        return (laptop, desktop, ids)
    }

    func testARemovalLandsInTheOtherDevicesTrashAndARestoreThereComesBackEverywhere() throws {
        let (laptop, desktop, ids) = try twoDevices(holding: ["Mail", "Bank"])
        XCTAssertEqual(try laptop.ok(["rm", "Mail"]).line, ids[0])
        XCTAssertEqual(titles(try laptop.list()), ["Bank"])
        XCTAssertEqual(titles(try trashed(laptop)), ["Mail"])
        try synced(laptop, desktop)

        XCTAssertEqual(titles(try desktop.list()), ["Bank"], "the list does not show the trash")
        XCTAssertEqual(try desktop.search("Mail").count, 0, "nor does search")
        let inTrash = try trashed(desktop)
        XCTAssertEqual(titles(inTrash), ["Mail"])
        XCTAssertEqual(inTrash.first?["kind"] as? String, "login")
        XCTAssertNotNil((inTrash.first?["trashed"] as? String).flatMap { $0.hasSuffix("Z") ? $0 : nil }, "\(inTrash)")
        assertError(try desktop.run(["show", "Mail"]), 4, mentions: ["Mail"])
        let table = try desktop.ok(["trash"]).out
        XCTAssertTrue(table.contains("Mail") && table.contains("login") && table.contains("trashed 20"), table)

        XCTAssertEqual(try desktop.ok(["restore", "Mail"]).line, ids[0])
        assertError(try desktop.run(["restore", "Mail"]), 4, mentions: ["Mail"])
        try synced(desktop, laptop, desktop)
        for device in [laptop, desktop] {
            XCTAssertEqual(titles(try device.list()), ["Mail", "Bank"])
            XCTAssertEqual(try trashed(device).count, 0)
            XCTAssertEqual(try device.ok(["show", "Mail", "--field", "password"]).line, "p-Mail", "restored as it was")
        }
    }

    /// The rule: "a conflict between an edit and a removal keeps the edit and the trash is empty".
    func testAnEditOnOneDeviceBeatsATrashOnTheOther() throws {
        let (laptop, desktop, _) = try twoDevices(holding: ["Mail"])
        try laptop.ok(["rm", "Mail"])
        try desktop.ok(["edit", "Mail", "--password", "edited-on-desktop"])
        try synced(desktop, laptop, desktop, laptop)
        for device in [laptop, desktop] {
            XCTAssertEqual(titles(try device.list()), ["Mail"])
            XCTAssertEqual(try trashed(device).count, 0, "the trash is empty")
            XCTAssertEqual(try device.ok(["show", "Mail", "--field", "password"]).line, "edited-on-desktop")
        }
    }

    func testEmptyingTheTrashRemovesForGoodOnEveryDevice() throws {
        let (laptop, desktop, _) = try twoDevices(holding: ["Mail", "Bank", "Door"])
        try laptop.ok(["rm", "Mail"])
        try laptop.ok(["rm", "Bank"])
        XCTAssertEqual(try laptop.ok(["trash", "--empty"]).line, "Removed 2 item(s) for good.")
        XCTAssertEqual(try laptop.ok(["trash"]).line, "The trash is empty.")
        try laptop.ok(["rm", "--purge", "Door"])
        XCTAssertEqual(try trashed(laptop).count, 0, "--purge skips the trash")
        try synced(laptop, desktop)
        XCTAssertEqual(try desktop.list().count, 0)
        XCTAssertEqual(try trashed(desktop).count, 0)
        assertError(try desktop.run(["restore", "Mail"]), 4, mentions: ["Mail"])
    }

    /// The purge runs at an unlocked sync. The vault's clock is its device clock corrected by the
    /// offset the last sync measured (`meta.clock_skew`): set 31 days behind, `rm` dates the trash
    /// then; the next sync measures the offset again, and the purge reads today.
    func testAnUnlockedSyncRemovesForGoodWhatStayedInTheTrashOver30Days() throws {
        let (laptop, desktop, _) = try twoDevices(holding: ["Old", "Recent"])
        let monthAgo: Int64 = -31 * 86_400_000
        try DatabaseQueue(path: laptop.path).write { db in
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'clock_skew'",
                           arguments: ["\(monthAgo) \(monthAgo) 2026-01-01T00:00:00.000Z"])
        }
        try laptop.ok(["rm", "Old"])
        try DatabaseQueue(path: laptop.path).write { db in
            try db.execute(sql: "DELETE FROM meta WHERE key = 'clock_skew'")
        }
        try laptop.ok(["rm", "Recent"])
        let dates = try trashed(laptop).compactMap { $0["trashed"] as? String }.sorted()
        XCTAssertEqual(dates.count, 2)
        XCTAssertLessThan(dates[0], dates[1], "Old was trashed a month before Recent")

        assertOK(try laptop.run(["sync"], unlock: false))
        XCTAssertEqual(titles(try trashed(laptop)), ["Old", "Recent"], "a locked sync removes nothing")
        assertOK(try laptop.run(["sync", "--unlock"]))
        XCTAssertEqual(titles(try trashed(laptop)), ["Old", "Recent"], "looked less than a day ago (at the first sync)")
        try forgetTrashCheck(laptop)
        try synced(laptop, desktop)
        for device in [laptop, desktop] {
            XCTAssertEqual(titles(try trashed(device)), ["Recent"], "only what stayed over 30 days is gone")
            XCTAssertEqual(try device.list().count, 0)
        }
        assertError(try desktop.run(["restore", "Old"]), 4, mentions: ["Old"])
    }
}

extension SyncCommandTests {
    /// The purge removes in one transaction: a crash at any of its points (`CrashPoint.trash`)
    /// leaves every expired item in the trash or none, and the next unlocked sync finishes the work
    /// and reaches the other device.
    func testACrashInThePurgeLeavesAllOrNoneAndTheNextSyncFinishes() throws {
        XCTAssertEqual(CrashPoint.trash, ["vault.trash-removal.before-write", "vault.trash-removal.inside-write",
                                          "vault.trash-removal.after-write"])
        XCTAssertTrue(Set(CrashPoint.trash).isDisjoint(with: CrashPoint.all), "the harness's scenario trashes nothing")
        for point in CrashPoint.trash {
            let laptop = try makeVault()
            for title in ["Old one", "Old two", "Kept"] { _ = try laptop.add(title) }
            let account = try signUp(laptop)
            assertOK(try laptop.run(["sync", "--unlock"]))
            let desktop = try join(laptop, account)
            let monthAgo: Int64 = -31 * 86_400_000
            try DatabaseQueue(path: laptop.path).write { db in
                try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'clock_skew'",
                               arguments: ["\(monthAgo) \(monthAgo) 2026-01-01T00:00:00.000Z"])
            }
            try laptop.ok(["rm", "Old one"])
            try laptop.ok(["rm", "Old two"])
            try forgetTrashCheck(laptop)

            let crashed = try CofferProcess.run(["--vault", laptop.path, "--passphrase-file", laptop.passphraseFile, "sync", "--unlock"],
                                                home: laptop.root, environment: ["COFFER_CRASH_POINT": point])
            XCTAssertEqual(crashed.status, 86, "\(point): \(crashed.summary)")
            let left = try laptop.ok(["trash", "--json"]).jsonArray().compactMap { $0["title"] as? String }.sorted()
            let expected = point.hasSuffix("after-write") ? [] : ["Old one", "Old two"]
            XCTAssertEqual(left, expected, "\(point): all or none")

            assertOK(try laptop.run(["sync", "--unlock"]))
            assertOK(try desktop.run(["sync", "--unlock"]))
            for device in [laptop, desktop] {
                XCTAssertEqual(try device.ok(["trash", "--json"]).jsonArray().count, 0, point)
                XCTAssertEqual(try device.list().compactMap { $0["title"] as? String }, ["Kept"], point)
            }
        }
    }
}
