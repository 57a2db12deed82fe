import Foundation
import XCTest

/// `coffer status`: counts without asking for the passphrase.
final class StatusTests: XCTestCase {
    func testStatusNeedsNoPassphraseAndCountsItemsAndPendingChanges() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }

        let initial = try vault.status()
        assertKeys(initial, Shapes.status, "status --json")
        XCTAssertEqual(initial["locked"] as? Bool, true)
        XCTAssertEqual(initial["items"] as? Int, 0)
        XCTAssertEqual(initial["conflicts"] as? Int, 0)
        XCTAssertTrue(initial["lastSync"] is NSNull)
        XCTAssertTrue(initial["lastError"] is NSNull)
        XCTAssertTrue(initial["account"] is NSNull)
        XCTAssertTrue(initial["clockSkewMs"] is NSNull, "no sync, no measured offset")
        let basePending = try XCTUnwrap(initial["pending"] as? Int)
        XCTAssertEqual(basePending, 0, "a new vault's first keystore is not an item a person would call pending")
        XCTAssertEqual(initial["pendingVaultRecords"] as? Int, 1, "the keystore waits for the first sync, counted apart")

        let first = try vault.add("one")
        _ = try vault.add("two")
        var status = try vault.status()
        XCTAssertEqual(status["items"] as? Int, 2)
        XCTAssertEqual(status["pending"] as? Int, basePending + 2, "each new item is one pending change")

        // Many edits of one item stay one pending change.
        _ = try vault.ok(["edit", first, "--password", "a"])
        _ = try vault.ok(["edit", first, "--password", "b"])
        status = try vault.status()
        XCTAssertEqual(status["items"] as? Int, 2)
        XCTAssertEqual(status["pending"] as? Int, basePending + 2)

        _ = try vault.ok(["rm", "--purge", first])
        status = try vault.status()
        XCTAssertEqual(status["items"] as? Int, 1)

        // The table, also with no passphrase source at all (stdin is empty and not a terminal).
        let table = try vault.run(["status"], unlock: false)
        assertOK(table)
        XCTAssertTrue(table.out.contains("items") && table.out.contains("1"), table.summary)
        XCTAssertTrue(table.out.contains("🔒"), table.summary)
        XCTAssertEqual(table.err, "")
    }

    func testStatusOfAMissingVaultIsAnError() throws {
        let vault = try TestVault()
        defer { vault.destroy() }
        assertError(try vault.run(["status", "--json"], unlock: false), 1, mentions: ["no vault", vault.path])
    }
}
