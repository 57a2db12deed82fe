import Foundation
import XCTest

/// `coffer history` after two devices edit one item on the real Kinto (issue 43 finding 10):
/// each change is listed once, and tag changes are listed too.
extension SyncCommandTests {
    private func sync(_ vault: TestVault, file: StaticString = #filePath, line: UInt = #line) throws {
        assertOK(try vault.run(["sync", "--unlock"]), file: file, line: line)
    }

    private func history(_ vault: TestVault, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let result = try vault.ok(["history", name], file: file, line: line)
        // "1. 2026-…Z  before: username: fromB" → what it says, without the number and time.
        return result.out.split(separator: "\n").map { line in
            line.range(of: "before: ").map { String(line[$0.upperBound...]) } ?? String(line)
        }
    }

    /// B edits first and syncs first; A's later edit wins at A's merge, B's value goes to history.
    func testHistoryAfterAMergeListsEachChangeOnce() throws {
        try assertMergedHistoryListsEachChangeOnce(laterEditSyncsFirst: false)
    }

    /// A's later edit reaches the server first; B merges.
    func testHistoryAfterAMergeOnTheOtherSideListsEachChangeOnce() throws {
        try assertMergedHistoryListsEachChangeOnce(laterEditSyncsFirst: true)
    }

    /// The second device first syncs locked (the conflict waits for an unlock), then unlocked.
    func testHistoryAfterAMergeOnUnlockListsEachChangeOnce() throws {
        try assertMergedHistoryListsEachChangeOnce(laterEditSyncsFirst: false, secondSyncsLockedFirst: true)
    }

    private func assertMergedHistoryListsEachChangeOnce(laterEditSyncsFirst: Bool, secondSyncsLockedFirst: Bool = false) throws {
        let a = try makeVault()
        _ = try a.add("Mail", ["--username", "orig"])
        let account = try signUp(a)
        try sync(a)
        let b = try join(a, account)

        try b.ok(["edit", "Mail", "--username", "fromB"])
        Thread.sleep(forTimeInterval: 1.1)
        try a.ok(["edit", "Mail", "--username", "fromA"])
        let (first, second) = laterEditSyncsFirst ? (a, b) : (b, a)
        try sync(first)
        if secondSyncsLockedFirst {
            // Locked, the conflicting version is fetched and kept for the unlock (exit 12: SYNC_LOCKED).
            let locked = try second.run(["sync"], unlock: false)
            XCTAssertTrue([0, 12].contains(locked.status), locked.err)
        }
        try sync(second)
        try sync(first)
        try sync(second)

        for (device, name) in [(a, "A"), (b, "B")] {
            let lines = try history(device, "Mail")
            XCTAssertEqual(lines.count, Set(lines).count, "device \(name) lists a change twice:\n\(lines.joined(separator: "\n"))")
            XCTAssertTrue(lines.contains("username: orig"), "device \(name):\n\(lines.joined(separator: "\n"))")
            XCTAssertTrue(lines.contains("username: fromB"), "device \(name):\n\(lines.joined(separator: "\n"))")
        }
        XCTAssertEqual(try history(a, "Mail"), try history(b, "Mail"), "the two devices list different histories")
    }

    func testHistoryListsTagChanges() throws {
        let a = try makeVault()
        _ = try a.add("Bank", ["--tag", "money"])
        let account = try signUp(a)
        try sync(a)
        let b = try join(a, account)
        try a.ok(["edit", "Bank", "--tag", "work"])
        try sync(a)
        try sync(b)
        let lines = try history(b, "Bank")
        XCTAssertEqual(lines, ["tags: money"], "the tag change is not listed:\n\(lines.joined(separator: "\n"))")
    }
}
