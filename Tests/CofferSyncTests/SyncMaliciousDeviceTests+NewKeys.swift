import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// A removed device of a personal vault, with the server's help, against new keys (issue 42,
/// architecture §9 "New keys at a device's removal"): what it wrote with the keys it kept is
/// refused by every remaining device, right after the removal and after a later change of keys;
/// an honest device's edit made before it learned the new keys is kept.
extension SyncMaliciousDeviceTests {
    static let secondPassphrase = "a passphrase the removed device never saw"
    static let thirdPassphrase = "and another one after that"

    /// `device`'s own change of `id` not sent yet, as the server would store it.
    func pendingRecord(of id: String, on device: Device) throws -> [String: Any] {
        let change = try XCTUnwrap(try device.vault.database.syncRead { try $0.pendingChange(.items, id, source: .local) })
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(change.record.utf8)) as? [String: Any])
    }

    /// The server's record of item `id`.
    func serverRecord(_ id: String, as device: Device) async throws -> [String: Any] {
        let records = try await raw(as: device).records("items")
        return try XCTUnwrap(records.first { $0["id"] as? String == id })
    }

    func testARemovedDevicesVersionIsRefusedAfterNewKeysAndAnHonestLateEditIsKept() async throws {
        let all = try await devices(["a", "b", "c"])
        let (a, b, c) = (all[0], all[1], all[2])
        let mail = try await a.add("Mail", password: "real-1").id
        let bank = try await a.add("Bank", password: "bank-1").id
        await a.syncExpectingSuccess()
        for device in [b, c] { await device.syncExpectingSuccess() }

        // C, soon removed, prepares versions with the keys it keeps; B edits the bank offline.
        try await c.edit(mail) { $0.entry.password = "FORGED-BY-C" }
        let forged = try pendingRecord(of: mail, on: c)
        try await c.remove(bank)
        let forgedRemoval = try pendingRecord(of: bank, on: c)
        try await b.edit(bank) { $0.entry.password = "bank-2 from b, offline" }

        // A removes C: new account password, then new keys under a new passphrase.
        try await removeWithRotation(c, by: a, remaining: [b])
        try await a.vault.rotateKeys(to: secret(Self.secondPassphrase), kdf: Device.fastKDF)
        await a.syncExpectingSuccess()

        // B, still unlocked with the old passphrase, sends nothing and says why.
        let waiting = await b.sync()
        XCTAssertEqual(waiting.error, .syncLocked, waiting.message ?? "")
        XCTAssertTrue(waiting.message?.contains("new passphrase") == true, waiting.message ?? "")
        let served = try await serverRecord(bank, as: a)["encrypted"] as? String
        XCTAssertEqual(served, try XCTUnwrap(try a.vault.database.syncRead { try $0.stableItem(bank) }).encrypted,
                       "B's edit, sealed with the old keys, waits")
        // Locked, B fetches and still sends nothing; the new passphrase opens it with the new keys.
        await b.lock()
        let locked = await b.sync()
        XCTAssertNotEqual(locked.error, .forged, locked.message ?? "")
        let unsent = try await serverRecord(bank, as: a)["encrypted"] as? String
        XCTAssertEqual(unsent, served, "still waiting")
        try await b.unlock(Self.secondPassphrase)
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        let kept = try await a.items()[bank]?.entry.password
        XCTAssertEqual(kept, "bank-2 from b, offline", "the honest late edit is kept")

        // The server lends C the account: C's versions, sealed with the keys it kept, go up.
        let server = try raw(as: a)
        for device in [a, b] {
            try await server.put("items", forged)
            try await server.put("items", forgedRemoval)
            let report = await device.sync()
            XCTAssertEqual(report.error, .forged, "\(device.name): \(report.message ?? "")")
            let items = try await device.items()
            XCTAssertEqual(items[mail]?.entry.password, "real-1", device.name)
            XCTAssertEqual(items[bank]?.entry.password, "bank-2 from b, offline", device.name)
            await device.syncExpectingSuccess()
        }
        let restored = try await serverRecord(mail, as: a)["encrypted"] as? String
        XCTAssertNotEqual(restored, forged["encrypted"] as? String, "ours went back over the forgery")

        // A later change of keys (after a sync, as the commands do: what B sent is committed too):
        // a newer version C writes with the keys it kept is still refused, and the vault opens everything.
        await a.syncExpectingSuccess()
        try await a.vault.rotateKeys(to: secret(Self.thirdPassphrase), kdf: Device.fastKDF)
        await a.syncExpectingSuccess()
        await b.lock()
        _ = await b.sync()
        try await b.unlock(Self.thirdPassphrase)
        await b.syncExpectingSuccess()
        clock.advance(60)
        try await c.edit(mail) { $0.entry.password = "FORGED-BY-C, later" }
        try await server.put("items", try pendingRecord(of: mail, on: c))
        let again = await b.sync()
        XCTAssertEqual(again.error, .forged, again.message ?? "")
        let onB = try await b.items()
        XCTAssertEqual(onB[mail]?.entry.password, "real-1")
        await a.syncExpectingSuccess()
        let onA = try await a.items()
        XCTAssertEqual(onA[mail]?.entry.password, "real-1")
        XCTAssertEqual(onA.count, 2)
    }
}
