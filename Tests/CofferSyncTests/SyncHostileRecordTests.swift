import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// Records a hostile or broken server changed in shape (not in content): a field stripped, a
/// field added. Real Kinto; the records are written straight to the account.
final class SyncHostileRecordTests: XCTestCase {
    var server: TestServer!
    var credentials: KintoCredentials!
    var directory: URL!

    override func setUp() async throws {
        server = try TestServer.require()
        credentials = try await server.makeAccount()
        directory = try temporaryDirectory(self)
    }

    private func pair() async throws -> (a: Device, b: Device, raw: RawAccount, item: Item) {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        let item = try await a.add("Shape", username: "ann", password: "pw", tags: ["t"])
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        return (a, b, RawAccount(server: server, credentials: credentials), item)
    }

    /// An item without its ciphertext is refused whole: the sync says so, nothing of it is stored,
    /// and B's copy stays as it was.
    func testARecordWithAFieldStrippedIsRefusedAndStoresNothing() async throws {
        let (a, b, raw, item) = try await pair()
        try await a.edit(item.id) { $0.entry.password = "pw2" }
        await a.syncExpectingSuccess()
        var record = try await raw.record("items", item.id)
        record.removeValue(forKey: "encrypted")
        try await raw.put("items", item.id, record)

        let report = await b.sync()
        XCTAssertEqual(report.error, .network)
        XCTAssertTrue(report.message?.contains("malformed items record") == true, report.message ?? "")
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id], item, "B's copy is untouched")
        XCTAssertEqual(try b.status().allPendingChanges, 0, "nothing of it was stored")
    }

    /// A field we do not know is dropped: never stored, never sent on; the record's own content
    /// goes through.
    func testAnExtraFieldIsDroppedNotStoredOrSentOn() async throws {
        let (a, b, raw, item) = try await pair()
        try await a.edit(item.id) { $0.entry.password = "pw2" }
        await a.syncExpectingSuccess()
        var record = try await raw.record("items", item.id)
        record["injected"] = "from the server"
        try await raw.put("items", item.id, record)

        await b.syncExpectingSuccess()
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.entry.password, "pw2")
        let stored = try b.vault.database.read { db in
            try VaultDatabase.pendingChanges(.items, in: db).map(\.record)
                + [try VaultDatabase.stableItem(item.id, in: db).map { try RecordCoding.encode($0) } ?? ""]
        }
        XCTAssertFalse(stored.joined().contains("injected"))

        try await b.edit(item.id) { $0.entry.notes = "edited on B" }
        await b.syncExpectingSuccess()
        let after = try await raw.record("items", item.id)
        XCTAssertNil(after["injected"], "B's update replaced the record whole")
        await a.syncExpectingSuccess()
        try await assertConverged([a, b])
    }
}
