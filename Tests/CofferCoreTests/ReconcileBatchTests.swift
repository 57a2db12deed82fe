import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// `reconcileItems` over more conflicts than one batch of `ReconcileWork` (the workers hand the
/// write transaction batch after batch), on a real vault file: every kind of outcome, written in
/// the order the remote rows were recorded, each to the right pending rows.
final class ReconcileBatchTests: XCTestCase {
    private let clock = TestClock()

    /// Merges (both sides edited), one where the server's version was made on top of ours, one
    /// whose local change is still an add, and one whose key this device lacks: spread over
    /// three and a half batches.
    func testManyConflictsAreWrittenBatchAfterBatchEachToItsRows() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase("correct horse"), kdf: Fixture.fastKDF(),
                                     deviceName: "test device", clock: clock.function)
        let count = ReconcileWork.batchSize * 3 + ReconcileWork.batchSize / 2
        let items = (0..<count).map {
            Item(id: "item-\($0)", title: "Item \($0)", entry: Entry(username: "u\($0)", password: "p\($0)"), created: clock.now)
        }
        try await vault.addAll(items)
        let ring = try await vault.unlockedSession().ring
        let oursAlready = items[count / 2].id
        let stillAnAdd = items[count - 1].id
        // As after a sync: every item stable at timestamp 100, except the last, never pushed.
        try vault.database.write { db in
            for item in items.dropLast() {
                let change = try XCTUnwrap(try VaultDatabase.pendingChange(.items, item.id, source: .local, in: db))
                var record = try RecordCoding.decode(ItemRecord.self, from: change.record)
                record.lastModified = 100
                try VaultDatabase.saveStableItem(record, in: db)
                try VaultDatabase.deletePending(.items, item.id, source: .local, in: db)
            }
        }
        // The other device's edits, recorded in reverse order: the writes must follow that order.
        clock.advance(milliseconds: 1000)
        try vault.database.write { db in
            for item in items.reversed() where item.id != oursAlready {
                var remote = item
                remote.entry.password = "remote \(item.id)"
                let base = try VaultDatabase.stableItem(item.id, in: db)?.encrypted
                let sealed = try ItemSealing.seal(remote, ring: ring, lineage: .following(base, now: clock.now), lastModified: 200)
                try VaultDatabase.savePending(PendingChange(collection: .items, id: item.id, source: .remote, action: .update,
                                                            lastModified: 200, record: try RecordCoding.encode(sealed)), in: db)
            }
        }
        // This device's edits; then the server's version of one made on top of ours.
        clock.advance(milliseconds: 1000)
        for item in items {
            var local = item
            local.entry.username = "local \(item.id)"
            _ = try await vault.update(local)
        }
        try vault.database.write { db in
            let local = try XCTUnwrap(try VaultDatabase.pendingChange(.items, oursAlready, source: .local, in: db))
            let localRecord = try RecordCoding.decode(ItemRecord.self, from: local.record)
            var remote = try ItemSealing.open(localRecord, ring: ring)
            remote.title = "edited on top of ours"
            let sealed = try ItemSealing.seal(remote, ring: ring, lineage: .following(localRecord.encrypted, now: clock.now),
                                              lastModified: 300)
            try VaultDatabase.savePending(PendingChange(collection: .items, id: oursAlready, source: .remote, action: .update,
                                                        lastModified: 300, record: try RecordCoding.encode(sealed)), in: db)
            // A conflict whose item key has not arrived: it waits, both rows kept.
            let ghost = ItemRecord(id: "ghost", isActive: true, originHashes: [], tagHashes: [], encrypted: "AAAA", lastModified: 0)
            for source in [PendingChange.Source.local, .remote] {
                try VaultDatabase.savePending(PendingChange(collection: .items, id: "ghost", source: source, action: .update,
                                                            lastModified: 50, record: try RecordCoding.encode(ghost)), in: db)
            }
        }

        let merged = try await vault.reconcileItems()

        let expectedOrder = items.reversed().map(\.id).filter { $0 != oursAlready }
        XCTAssertEqual(merged, expectedOrder, "every merge, in the order the remote rows were recorded")
        for item in items where item.id != oursAlready {
            let result = try await vault.item(item.id)
            // Without a common base (never synced) the merge keeps local scalars (§4).
            let password = item.id == stillAnAdd ? item.entry.password : "remote \(item.id)"
            XCTAssertEqual(result.entry, Entry(username: "local \(item.id)", password: password), item.id)
        }
        let ours = try await vault.item(oursAlready)
        XCTAssertEqual(ours.title, "edited on top of ours")
        XCTAssertEqual(ours.entry.username, "local \(oursAlready)")

        try vault.database.read { db in
            let remoteRows = try VaultDatabase.pendingChanges(.items, source: .remote, in: db)
            XCTAssertEqual(remoteRows.map(\.id), ["ghost"], "every handled remote row dropped, the waiting one kept")
            let localRows = try VaultDatabase.pendingChanges(.items, source: .local, in: db)
            XCTAssertEqual(Set(localRows.map(\.id)), Set(expectedOrder + ["ghost"]), "the server's version of ours needs no push")
            for row in localRows where row.id != "ghost" {
                XCTAssertEqual(row.action, .update, "\(row.id): based on the server's version now")
                XCTAssertEqual(row.lastModified, 200, row.id)
                XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: row.record).lastModified, 200, row.id)
            }
            XCTAssertEqual(localRows.first { $0.id == "ghost" }?.lastModified, 50)
            XCTAssertEqual(try VaultDatabase.stableItem(oursAlready, in: db)?.lastModified, 300)
            XCTAssertEqual(try VaultDatabase.stableItem(stillAnAdd, in: db)?.lastModified, 200)
            XCTAssertEqual(try VaultDatabase.reviewCount(in: db), expectedOrder.count)
        }
        let again = try await vault.reconcileItems()
        XCTAssertEqual(again, [], "nothing left but the waiting pair")
    }

    /// A pair that fails in a later batch (a stored record that is not JSON) after earlier batches
    /// were written: the one transaction rolls back, nothing of the merge is kept, and the workers
    /// still under way finish before `reconcileItems` returns.
    func testAFailureInALaterBatchKeepsNothingOfTheEarlierOnes() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase("correct horse"), kdf: Fixture.fastKDF(),
                                     deviceName: "test device", clock: clock.function)
        let count = ReconcileWork.batchSize * 4
        let items = (0..<count).map {
            Item(id: "item-\($0)", title: "Item \($0)", entry: Entry(username: "u\($0)", password: "p\($0)"), created: clock.now)
        }
        try await vault.addAll(items)
        let ring = try await vault.unlockedSession().ring
        clock.advance(milliseconds: 1000)
        try vault.database.write { db in
            for item in items {
                var remote = item
                remote.entry.password = "remote"
                let sealed = try ItemSealing.seal(remote, ring: ring, lineage: .following(nil, now: clock.now), lastModified: 200)
                try VaultDatabase.savePending(PendingChange(collection: .items, id: item.id, source: .remote, action: .update,
                                                            lastModified: 200, record: try RecordCoding.encode(sealed)), in: db)
            }
            try db.execute(sql: "UPDATE pending SET record = 'not json' WHERE source = 'local' AND id = ?",
                           arguments: [items[ReconcileWork.batchSize * 3 - 1].id])
        }
        let before = try vault.database.read { db in
            try Row.fetchAll(db, sql: "SELECT key, source, action, last_modified, record FROM pending ORDER BY key")
        }

        do {
            _ = try await vault.reconcileItems()
            XCTFail("a record that is not JSON stops the reconcile")
        } catch CoreError.tampered {}

        try vault.database.read { db in
            let after = try Row.fetchAll(db, sql: "SELECT key, source, action, last_modified, record FROM pending ORDER BY key")
            XCTAssertEqual(after, before, "the pending rows as they were, the first batches' writes undone")
            XCTAssertEqual(try VaultDatabase.reviewCount(in: db), 0)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM items"), 0)
        }
    }
}
