import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// A full listing reuses what the previous one opened for records that did not change: the
/// screen's reload after another process's commit opens only the changed records.
final class ListingReuseTests: XCTestCase {
    func testAListingAgainSeesChangesAndStillNoticesTampering() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let screen = try Vault.create(at: path, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        let items = (1...3).map { Fixture.item(title: "item \($0)") }
        try await screen.addAll(items)
        let first = try await screen.listItems()
        XCTAssertEqual(Set(first.compactMap { $0.item?.title }), ["item 1", "item 2", "item 3"])

        let other = try Vault.open(at: path)
        try await other.unlock(passphrase: Fixture.passphrase("pass"))
        var changed = try await other.item(items[0].id)
        changed.title = "changed elsewhere"
        try await other.update(changed)
        try await other.remove(items[2].id)
        let again = try await screen.listItems()
        XCTAssertEqual(Set(again.compactMap { $0.item?.title }), ["changed elsewhere", "item 2"])

        // One base64 character of item 2's ciphertext changed on disk: opened again, and refused.
        try screen.database.write { db in
            let json = try XCTUnwrap(String.fetchOne(db, sql: "SELECT record FROM pending WHERE id = ?", arguments: [items[1].id]))
            let start = try XCTUnwrap(json.range(of: "\"encrypted\":\"")).upperBound
            let position = json.index(start, offsetBy: 60)
            let flipped = json[position] == "A" ? "B" : "A"
            let tampered = json.replacingCharacters(in: position...position, with: flipped)
            try db.execute(sql: "UPDATE pending SET record = ? WHERE id = ?", arguments: [tampered, items[1].id])
        }
        let afterTampering = try await screen.listItems().first { $0.id == items[1].id }
        guard case .corrupt? = afterTampering?.state else {
            return XCTFail("a changed ciphertext was not opened again: \(String(describing: afterTampering?.state))")
        }

        // Locked, nothing is remembered: unlocking lists from the records again.
        await screen.lock()
        try await screen.unlock(passphrase: Fixture.passphrase("pass"))
        let unlocked = try await screen.listItems()
        XCTAssertEqual(Set(unlocked.compactMap { $0.item?.title }), ["changed elsewhere"])
    }
}

extension ListingReuseTests {
    /// A synced item edited by another process moves from the stable rows to a local change: the
    /// listing again opens it from there, with its badges (↑, then ⚠ once a remote change waits).
    func testAListingAgainFollowsAnItemFromStableToLocalWithItsBadges() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let screen = try Vault.create(at: path, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        let items = (1...2).map { Fixture.item(title: "item \($0)") }
        try await screen.addAll(items)
        // As after a first sync: each local addition becomes the stable record, with a server time.
        try screen.database.write { db in
            for current in try VaultDatabase.currentItems(in: db) {
                var record = current.record
                record.lastModified = 1000
                try VaultDatabase.saveStableItem(record, in: db)
            }
            try db.execute(sql: "DELETE FROM pending WHERE collection = 'items'")
        }
        let first = try await screen.listItems()
        XCTAssertEqual(first.filter(\.hasLocalChange).count, 0, "both items stable")

        let other = try Vault.open(at: path)
        try await other.unlock(passphrase: Fixture.passphrase("pass"))
        var changed = try await other.item(items[0].id)
        changed.title = "changed elsewhere"
        try await other.update(changed)
        let again = try await screen.listItems()
        XCTAssertEqual(again.count, 2)
        let edited = try XCTUnwrap(again.first { $0.id == items[0].id })
        XCTAssertEqual(edited.item?.title, "changed elsewhere")
        XCTAssertTrue(edited.hasLocalChange)
        XCTAssertFalse(edited.hasConflict)
        XCTAssertEqual(again.first { $0.id == items[1].id }?.item?.title, "item 2")

        try screen.database.write { db in
            try db.execute(sql: """
                INSERT INTO pending (collection, id, source, action, last_modified, record)
                SELECT collection, id, 'remote', 'update', 2000, record FROM pending
                WHERE collection = 'items' AND source = 'local' AND id = ?
                """, arguments: [items[0].id])
        }
        let conflicted = try await screen.listItems().first { $0.id == items[0].id }
        XCTAssertEqual(conflicted?.hasConflict, true)
        XCTAssertEqual(conflicted?.item?.title, "changed elsewhere", "the local change is what the list shows")
    }
}

/// The unlock's listing hands out what it has opened so far, so the screen draws a first page
/// while a large vault opens: first after the asked count, then at each fourfold growth.
final class ListingProgressTests: XCTestCase {
    func testTheListingReportsItsFirstItemsThenGrowsFourfold() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        try await vault.addAll((1...700).map { Fixture.item(title: "item \($0)") })
        final class Reports: @unchecked Sendable { var counts: [Int] = []; var firstIDs: [String] = [] }
        let reports = Reports()
        let all = try await vault.listItems(reportingFirst: 40) { opened in
            if reports.counts.isEmpty { reports.firstIDs = opened.map(\.id) }
            reports.counts.append(opened.count)
        }
        XCTAssertEqual(reports.counts, [40, 160, 640])
        XCTAssertEqual(all.count, 700)
        XCTAssertEqual(Array(all.prefix(40)).map(\.id), reports.firstIDs, "each report is a prefix of the listing")
        XCTAssertTrue(all.allSatisfy { $0.item != nil }, "every item opened")
    }
}
