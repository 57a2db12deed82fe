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
}
