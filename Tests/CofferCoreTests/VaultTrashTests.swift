import CofferTestSupport
import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// The trash on a real vault file (issue 43): an edit in and out, names that skip it, emptying and
/// the 30-day purge as sealed removals.
final class VaultTrashTests: XCTestCase {
    private func makeVault(clock: TestClock) throws -> Vault {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        return try Vault.create(at: path, passphrase: Fixture.passphrase("correct horse"), kdf: Fixture.fastKDF(),
                                deviceName: "test device", clock: clock.function)
    }

    /// The ids whose current version is a removal, or that are gone (never synced: the add and its removal cancel).
    private func removed(_ ids: [String], in vault: Vault) throws -> [String] {
        try vault.database.read { db in
            try ids.filter { id in try VaultDatabase.currentItem(id, in: db).map(\.record.isDeleted) ?? true }.sorted()
        }
    }

    func testTrashIsAnEditThatRestoreUndoes() async throws {
        let clock = TestClock()
        let vault = try makeVault(clock: clock)
        let item = try await vault.add(Fixture.item(title: "Mail"))
        clock.advance(milliseconds: 5_000)
        let trashed = try await vault.trash(item.id)
        XCTAssertEqual(trashed.trashed, clock.now)
        XCTAssertEqual(trashed.entry, item.entry)
        let again = try await vault.trash(item.id)
        XCTAssertEqual(again.trashed, trashed.trashed, "trashing twice keeps the first time")
        let listed = try await vault.listItems()
        XCTAssertEqual(listed.compactMap(\.item?.trashed), [clock.now], "the listing holds it, marked")
        let restored = try await vault.restore(item.id)
        XCTAssertNil(restored.trashed)
        XCTAssertEqual(restored.title, "Mail")
        XCTAssertEqual(try removed([item.id], in: vault), [], "nothing was removed")
    }

    func testAnItemInTheTrashHasNoName() async throws {
        let vault = try makeVault(clock: TestClock())
        let mail = try await vault.add(Fixture.item(title: "Mail"))
        let other = try await vault.add(Fixture.item(title: "Mail archive"))
        try await vault.trash(other.id)
        let byTitle = try await vault.item(named: "mail")
        XCTAssertEqual(byTitle.id, mail.id, "the trashed namesake does not make the name ambiguous")
        do {
            _ = try await vault.item(named: other.id)
            XCTFail("a trashed item was found by its id")
        } catch CoreError.noItemNamed {}
    }

    func testEmptyingRemovesOnlyWhatIsInTheTrashAsSealedRemovals() async throws {
        let vault = try makeVault(clock: TestClock())
        let kept = try await vault.add(Fixture.item(title: "Kept"))
        let first = try await vault.add(Fixture.item(title: "First"))
        let second = try await vault.add(Fixture.item(title: "Second"))
        try await vault.trash(first.id)
        try await vault.trash(second.id)
        let emptied = try await vault.emptyTrash()
        XCTAssertEqual(emptied, 2)
        let listed = try await vault.listItems()
        XCTAssertEqual(listed.map(\.id), [kept.id])
        XCTAssertEqual(try removed([kept.id, first.id, second.id], in: vault), [first.id, second.id].sorted())
        let none = try await vault.emptyTrash()
        XCTAssertEqual(none, 0)
    }

    func testThePurgeRemovesOnlyWhatStayedOverThirtyDays() async throws {
        let clock = TestClock()
        let vault = try makeVault(clock: clock)
        let old = try await vault.add(Fixture.item(title: "Old"))
        let recent = try await vault.add(Fixture.item(title: "Recent"))
        let kept = try await vault.add(Fixture.item(title: "Kept"))
        try await vault.trash(old.id)
        clock.advance(milliseconds: 86_400_000)
        try await vault.trash(recent.id)
        clock.advance(milliseconds: 30 * 86_400_000)  // old: 31 days; recent: 30, not more
        let purged = try await vault.purgeExpiredTrash()
        XCTAssertEqual(purged, 1)
        let listed = try await vault.listItems()
        XCTAssertEqual(Set(listed.map(\.id)), [recent.id, kept.id])
        XCTAssertEqual(try removed([old.id, recent.id, kept.id], in: vault), [old.id])

        // Recent's time has come a millisecond later, but the next look is a day after this one.
        clock.advance(milliseconds: 1)
        let early = try await vault.purgeExpiredTrash()
        XCTAssertEqual(early, 0)
        clock.advance(milliseconds: 86_400_000 - 1)
        let due = try await vault.purgeExpiredTrash()
        XCTAssertEqual(due, 1)
        XCTAssertEqual(try removed([recent.id], in: vault), [recent.id])
    }
}
