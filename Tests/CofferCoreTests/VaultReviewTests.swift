import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// Merging on a real vault file, without a server: the other device's version is written as a
/// pending remote row (what the fetch step stores), then `reconcileItems` merges it, stores a
/// review (⚑) and `resolveReview` applies the user's choices and clears it.
final class VaultReviewTests: XCTestCase {
    private let clock = TestClock()

    private func makeVault() throws -> Vault {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        return try Vault.create(at: path, passphrase: Fixture.passphrase("correct horse"), kdf: Fixture.fastKDF(),
                                deviceName: "test device", clock: clock.function)
    }

    /// Adds `item` and moves its pending add into `items`, as if the server had accepted it.
    private func addSynced(_ item: Item, to vault: Vault) async throws {
        try await vault.add(item)
        try vault.database.write { db in
            let change = try XCTUnwrap(try VaultDatabase.pendingChange(.items, item.id, source: .local, in: db))
            var record = try RecordCoding.decode(ItemRecord.self, from: change.record)
            record.lastModified = 100
            try VaultDatabase.saveStableItem(record, in: db)
            try VaultDatabase.deletePending(.items, item.id, source: .local, in: db)
        }
    }

    /// Stores the other device's edit of the stable version as a pending remote change.
    private func receiveRemoteEdit(of id: String, in vault: Vault, _ change: (inout Item) -> Void) async throws {
        let ring = try await vault.unlockedSession().ring
        clock.advance(milliseconds: 1000)
        try vault.database.write { db in
            let stableRecord = try XCTUnwrap(try VaultDatabase.stableItem(id, in: db))
            var remote = try ItemSealing.open(stableRecord, ring: ring)
            var edited = remote
            change(&edited)
            let entry = edited.entry
            edited.entry = remote.entry
            edited.replaceEntry(with: entry, at: clock.now)
            remote = edited
            let sealed = try ItemSealing.seal(remote, ring: ring, lineage: .following(stableRecord.encrypted), lastModified: 200)
            try VaultDatabase.savePending(PendingChange(collection: .items, id: id, source: .remote, action: .update,
                                                        lastModified: 200, record: try RecordCoding.encode(sealed)), in: db)
        }
    }

    private func editLocally(_ id: String, in vault: Vault, _ change: (inout Item) -> Void) async throws {
        clock.advance(milliseconds: 1000)
        var item = try await vault.item(id)
        change(&item)
        try await vault.update(item)
    }

    func testAMergeWithoutFieldsChangedOnBothSidesCanBeReviewedAndCleared() async throws {
        let vault = try makeVault()
        try await addSynced(Item(id: "a", title: "Mail", tags: ["home"], entry: Entry(username: "u0", password: "p0"),
                                 created: clock.now), to: vault)
        try await editLocally("a", in: vault) { $0.entry.username = "u1"; $0.tags = ["home", "family"] }
        try await receiveRemoteEdit(of: "a", in: vault) { $0.entry.password = "p1" }

        let merged = try await vault.reconcileItems()
        XCTAssertEqual(merged, ["a"])
        let item = try await vault.item("a")
        XCTAssertEqual(item.entry, Entry(username: "u1", password: "p1"))
        XCTAssertEqual(item.history.filter { $0.patch.objectValue?["username"] == .string("u0") }.count, 1,
                       "the old username is in history once")
        XCTAssertEqual(item.history.map(\.patch), [.object(["username": .string("u0")]), .object(["password": .string("p0")])])
        let listed = try await vault.listItems()
        XCTAssertEqual(listed.map(\.needsReview), [true])

        let reviews = try await vault.reviews()
        XCTAssertEqual(reviews, [ItemReview(id: "a", title: "Mail", conflicts: [
            ItemMerge.FieldConflict(field: .username, local: "u1", remote: "u0", changedOn: .local, chosen: .local),
            ItemMerge.FieldConflict(field: .password, local: "p0", remote: "p1", changedOn: .remote, chosen: .remote),
            ItemMerge.FieldConflict(field: .tags, lists: ItemMerge.ListValues(local: ["home", "family"], remote: ["home"],
                                                                               combined: ["home", "family"]), changedOn: .local),
        ])])

        // Swapping the one-side password back to this device's undoes the other device's change;
        // the tags go back to the other device's list.
        try await vault.resolveReview("a", choosing: [.password: .local, .username: .local, .tags: .remote])
        let resolved = try await vault.item("a")
        XCTAssertEqual(resolved.entry, Entry(username: "u1", password: "p0"))
        XCTAssertEqual(resolved.tags, ["home"])
        let remaining = try await vault.reviews()
        XCTAssertEqual(remaining, [])
        let relisted = try await vault.listItems()
        XCTAssertEqual(relisted.map(\.needsReview), [false], "⚑ cleared")
    }

    func testAMergeWhereOnlyTheLastUseDifferedStillClearsWhenAccepted() async throws {
        let vault = try makeVault()
        try await addSynced(Item(id: "b", title: "Bank", created: clock.now), to: vault)
        try await editLocally("b", in: vault) { $0.lastUsed = Timestamp(milliseconds: self.clock.now.milliseconds) }
        try await receiveRemoteEdit(of: "b", in: vault) { $0.lastUsed = Timestamp(milliseconds: self.clock.now.milliseconds + 5) }

        let merged = try await vault.reconcileItems()
        XCTAssertEqual(merged, ["b"])
        let reviews = try await vault.reviews()
        XCTAssertEqual(reviews, [ItemReview(id: "b", title: "Bank", conflicts: [])])
        try await vault.resolveReview("b", choosing: [:])
        let remaining = try await vault.reviews()
        XCTAssertEqual(remaining, [])
    }

    func testAReviewStoredByAnOlderVersionIsStillReadAndResolved() async throws {
        let vault = try makeVault()
        try await addSynced(Item(id: "c", title: "Shop", entry: Entry(password: "mine"), created: clock.now), to: vault)
        let ring = try await vault.unlockedSession().ring
        let key = try XCTUnwrap(ring.key(for: "c"))
        let old = #"{"id":"c","title":"Shop","conflicts":[{"field":"password","local":"mine","remote":"theirs","chosen":"local"}]}"#
        let sealed = try Envelope.seal(Data(old.utf8), key: key, collection: "reviews", id: "c")
        try vault.database.write { db in
            try db.execute(sql: "INSERT INTO reviews (id, created, sealed) VALUES (?, ?, ?)",
                           arguments: ["c", 0, sealed.base64EncodedString()])
        }
        let reviews = try await vault.reviews()
        XCTAssertEqual(reviews.first?.conflicts.first?.changedOn, .both)
        try await vault.resolveReview("c", useRemote: [.password])
        let item = try await vault.item("c")
        XCTAssertEqual(item.entry.password, "theirs")
    }
}
