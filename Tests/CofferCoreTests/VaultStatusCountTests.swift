@testable import CofferCore
import Foundation
import GRDB
import XCTest

/// `status().items` counts what the list shows: stable items, with local changes over them.
final class VaultStatusCountTests: XCTestCase {
    func testItemsCountStableAndLocalChangesTogether() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-status-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try VaultDatabase.create(at: directory.appendingPathComponent("v.db").path)
        try database.write { db in
            for id in ["a", "b", "c"] {
                try VaultDatabase.saveStableItem(ItemRecord(id: id, isActive: true, originHashes: [], tagHashes: [],
                                                            encrypted: "x", lastModified: 1), in: db)
            }
            func local(_ id: String, _ action: PendingChange.Action) throws {
                try VaultDatabase.savePending(PendingChange(collection: .items, id: id, source: .local, action: action,
                                                            lastModified: 1, record: "{}"), in: db)
            }
            try local("a", .update)
            try local("b", .remove)
            try local("d", .add)
            try VaultDatabase.savePending(PendingChange(collection: .items, id: "e", source: .remote, action: .add,
                                                        lastModified: 2, record: "{}"), in: db)
        }
        let status = try database.status()
        XCTAssertEqual(status.items, 3, "a (changed), c, d (new); b removed; e not applied yet")
        XCTAssertEqual(status.pending, 3)
    }

    /// The overlap of local changes and stable items is counted from the smaller side; both sides
    /// must give the list's count.
    func testItemsCountTheSameFromEitherSide() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-status-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try VaultDatabase.create(at: directory.appendingPathComponent("v.db").path)
        func stable(_ ids: [String], in db: Database) throws {
            for id in ids {
                try VaultDatabase.saveStableItem(ItemRecord(id: id, isActive: true, originHashes: [], tagHashes: [],
                                                            encrypted: "x", lastModified: 1), in: db)
            }
        }
        func local(_ id: String, removed: Bool = false, in db: Database) throws {
            try VaultDatabase.recordLocalChange(removed ? .tombstone(id: id, lastModified: 0)
                                                        : ItemRecord(id: id, isActive: true, originHashes: [], tagHashes: [],
                                                                     encrypted: "y", lastModified: 0), in: db)
        }
        // More stable items than local changes: one edited, one removed, one new.
        try database.write { db in
            try stable((1...6).map { "s\($0)" }, in: db)
            try local("s1", in: db)
            try local("s2", removed: true, in: db)
            try local("n1", in: db)
            try VaultDatabase.savePending(PendingChange(collection: .keystores, id: "k", source: .local, action: .update,
                                                        lastModified: 1, record: "{}"), in: db)
        }
        var status = try database.status()
        XCTAssertEqual(status.items, 6, "s1, s3…s6, n1")
        XCTAssertEqual(status.pending, 3, "item changes only")
        XCTAssertEqual(status.pendingVaultRecords, 1, "the keystore's change is counted apart")
        XCTAssertEqual(try database.read { db in try VaultDatabase.currentItems(in: db) }.count, status.items)

        // More local changes than stable items (an import before the first sync).
        try database.write { db in
            for n in 2...20 { try local("n\(n)", in: db) }
        }
        status = try database.status()
        XCTAssertEqual(status.items, 25, "s1, s3…s6, n1…n20")
        XCTAssertEqual(status.pending, 22)
        XCTAssertEqual(try database.read { db in try VaultDatabase.currentItems(in: db) }.count, status.items)
    }
}
