import CofferTestSupport
import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// The `pending` table: one row per (source, collection, id), local changes read over stable records.
final class PendingChangeTests: XCTestCase {
    private var database: VaultDatabase!

    override func setUpWithError() throws {
        database = try VaultDatabase.create(at: try makeTemporaryDirectory().appendingPathComponent("vault.db").path)
    }

    override func tearDown() { database = nil }

    private func record(_ id: String, _ text: String = "v1", lastModified: Int64 = 0) -> ItemRecord {
        ItemRecord(id: id, isActive: true, originHashes: ["o-\(text)"], tagHashes: [], encrypted: text, lastModified: lastModified)
    }

    private func localRows(_ id: String) throws -> [PendingChange] {
        try database.read { db in try VaultDatabase.pendingChanges(.items, source: .local, in: db) }.filter { $0.id == id }
    }

    private func rowCount() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pending") ?? 0 }
    }

    func testManyEditsOfOneNewItemCoalesceIntoOneAdd() throws {
        for version in 1...25 {
            try database.write { db in try VaultDatabase.recordLocalChange(record("a", "v\(version)"), in: db) }
        }
        let rows = try localRows("a")
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?.action, .add)
        XCTAssertEqual(rows.first?.lastModified, 0)
        XCTAssertEqual(try rows.first.map { try RecordCoding.decode(ItemRecord.self, from: $0.record).encrypted }, "v25")
        XCTAssertEqual(try rowCount(), 1)
    }

    /// The removal stays, based on nothing: a sync in another process may have pushed the add
    /// already, and its answer or a fetch of it must find the removal (`SyncRemovalInFlightTests`).
    func testAddThenRemoveOfANeverSyncedItemLeavesARemovalBasedOnNothing() throws {
        try database.write { db in
            try VaultDatabase.recordLocalChange(record("a"), in: db)
            try VaultDatabase.recordLocalChange(record("b"), in: db)
        }
        try database.write { db in try VaultDatabase.recordLocalChange(.tombstone(id: "a", lastModified: 0), in: db) }
        XCTAssertEqual(try localRows("a").map(\.action), [.remove])
        XCTAssertEqual(try localRows("a").map(\.lastModified), [0])
        XCTAssertEqual(try rowCount(), 2, "b's add stays")
        XCTAssertNil(try database.read { db in try VaultDatabase.currentItem("a", in: db) })
    }

    func testEditsOfASyncedItemBecomeOneUpdateThenOneRemove() throws {
        try database.write { db in try VaultDatabase.saveStableItem(record("a", "server", lastModified: 500), in: db) }
        for version in 1...5 {
            try database.write { db in try VaultDatabase.recordLocalChange(record("a", "local\(version)"), in: db) }
        }
        var rows = try localRows("a")
        XCTAssertEqual(rows.map(\.action), [.update])
        XCTAssertEqual(rows.first?.lastModified, 500, "the change is based on the stable record's timestamp")
        XCTAssertEqual(try rows.first.map { try RecordCoding.decode(ItemRecord.self, from: $0.record).lastModified }, 500)

        try database.write { db in try VaultDatabase.recordLocalChange(.tombstone(id: "a", lastModified: 0), in: db) }
        rows = try localRows("a")
        XCTAssertEqual(rows.map(\.action), [.remove])
        XCTAssertEqual(rows.first?.lastModified, 500)
        XCTAssertEqual(try rows.first.map { try RecordCoding.decode(ItemRecord.self, from: $0.record) },
                       .tombstone(id: "a", lastModified: 500))
        XCTAssertNil(try database.read { db in try VaultDatabase.currentItem("a", in: db) })
        XCTAssertEqual(try database.read { db in try VaultDatabase.currentItems(in: db) }, [])
        XCTAssertNotNil(try database.read { db in try VaultDatabase.stableItem("a", in: db) }, "stable is untouched")
    }

    func testLocalChangeIsReadOverTheStableRecord() throws {
        try database.write { db in
            try VaultDatabase.saveStableItem(record("a", "server", lastModified: 10), in: db)
            try VaultDatabase.saveStableItem(record("b", "server-b", lastModified: 11), in: db)
        }
        XCTAssertEqual(try database.read { db in try VaultDatabase.currentItem("a", in: db) }?.record.encrypted, "server")

        try database.write { db in try VaultDatabase.recordLocalChange(record("a", "local"), in: db) }
        let current = try XCTUnwrap(try database.read { db in try VaultDatabase.currentItem("a", in: db) })
        XCTAssertEqual(current.record.encrypted, "local")
        XCTAssertTrue(current.hasLocalChange)
        XCTAssertFalse(current.hasConflict)

        let all = try database.read { db in try VaultDatabase.currentItems(in: db) }
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: all.map { ($0.record.id, $0.record.encrypted) }),
                       ["a": "local", "b": "server-b"])
        XCTAssertEqual(all.first { $0.record.id == "b" }?.hasLocalChange, false)
    }

    func testLocalAndRemoteChangesOfOneItemAreSeparateRowsAndAConflict() throws {
        try database.write { db in
            try VaultDatabase.saveStableItem(record("a", "server", lastModified: 10), in: db)
            try VaultDatabase.recordLocalChange(record("a", "local"), in: db)
            try VaultDatabase.savePending(PendingChange(collection: .items, id: "a", source: .remote, action: .update,
                                                        lastModified: 20, record: RecordCoding.encode(record("a", "remote", lastModified: 20))),
                                          in: db)
            try VaultDatabase.savePending(PendingChange(collection: .items, id: "a", source: .remote, action: .update,
                                                        lastModified: 30, record: RecordCoding.encode(record("a", "remote2", lastModified: 30))),
                                          in: db)
        }
        XCTAssertEqual(try rowCount(), 2)
        let remote = try database.read { db in try VaultDatabase.pendingChange(.items, "a", source: .remote, in: db) }
        XCTAssertEqual(remote?.lastModified, 30)
        let current = try database.read { db in try VaultDatabase.currentItem("a", in: db) }
        XCTAssertEqual(current?.record.encrypted, "local")
        XCTAssertEqual(current?.hasConflict, true)
        XCTAssertEqual(try database.read { db in try VaultDatabase.currentItems(in: db) }.first?.hasConflict, true)
        XCTAssertEqual(try database.status().conflicts, 1)
    }

    func testStatusCounts() throws {
        try database.write { db in
            // Three stable items; one edited, one removed locally; two new local items.
            for id in ["s1", "s2", "s3"] { try VaultDatabase.saveStableItem(record(id, lastModified: 5), in: db) }
            try VaultDatabase.recordLocalChange(record("s1", "edited"), in: db)
            try VaultDatabase.recordLocalChange(.tombstone(id: "s2", lastModified: 0), in: db)
            try VaultDatabase.recordLocalChange(record("n1"), in: db)
            try VaultDatabase.recordLocalChange(record("n2"), in: db)
            // A remote change of s1 while s1 has a local change: one conflict. A remote change of s3 alone is none.
            for id in ["s1", "s3"] {
                try VaultDatabase.savePending(PendingChange(collection: .items, id: id, source: .remote, action: .update,
                                                            lastModified: 9, record: RecordCoding.encode(record(id, lastModified: 9))),
                                              in: db)
            }
            try db.execute(sql: "INSERT INTO reviews (id, created, sealed) VALUES ('s3', 0, 'x')")
            try VaultDatabase.setMeta(.lastSync, "2026-01-01T00:00:00.000Z", in: db)
            try VaultDatabase.setMeta(.accountUser, "alice", in: db)
        }
        let status = try database.status()
        XCTAssertEqual(status.items, 4, "s1, s3, n1, n2")
        XCTAssertEqual(status.pending, 4, "s1 update, s2 remove, n1 add, n2 add")
        XCTAssertEqual(status.conflicts, 1)
        XCTAssertEqual(status.unreviewed, 1)
        XCTAssertEqual(status.lastSync, "2026-01-01T00:00:00.000Z")
        XCTAssertEqual(status.account, "alice")
        XCTAssertNil(status.server)
        XCTAssertEqual(try database.read { db in try VaultDatabase.currentItems(in: db) }.count, status.items)
    }

    func testStableRecordRoundTripAndDeletion() throws {
        let stored = ItemRecord(id: "a", isActive: false, originHashes: ["x", "y"], tagHashes: ["t"], encrypted: "E",
                                lastModified: 99)
        try database.write { db in try VaultDatabase.saveStableItem(stored, in: db) }
        XCTAssertEqual(try database.read { db in try VaultDatabase.stableItem("a", in: db) }, stored)
        try database.write { db in try VaultDatabase.saveStableItem(.tombstone(id: "a", lastModified: 100), in: db) }
        XCTAssertNil(try database.read { db in try VaultDatabase.stableItem("a", in: db) })
    }

    func testPendingChangesKeepRecordingOrder() throws {
        try database.write { db in
            for id in ["c", "a", "b"] { try VaultDatabase.recordLocalChange(record(id), in: db) }
            try VaultDatabase.recordLocalChange(record("c", "v2"), in: db)  // replacing keeps c's place
        }
        XCTAssertEqual(try database.read { db in try VaultDatabase.pendingChanges(.items, in: db) }.map(\.id), ["c", "a", "b"])
    }

    func testUndecodablePendingRecordIsTamperedNotACrash() throws {
        try database.write { db in
            try VaultDatabase.savePending(PendingChange(collection: .items, id: "a", source: .local, action: .add,
                                                        lastModified: 0, record: "{not json"), in: db)
        }
        XCTAssertTrue(isTampered(thrownError { try self.database.read { db in try VaultDatabase.currentItem("a", in: db) } }))
    }
}
