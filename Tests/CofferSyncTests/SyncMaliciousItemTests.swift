import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// A server that is an adversary, against items (issue 41, finding 3): garbage with a future
/// revision, bytes that are no envelope, another item's ciphertext under this item's id. A locked
/// device keeps what it could read in the mirror; the next unlocked sync refuses what does not
/// open, names it (`FORGED`), puts ours back and sends it again, sealed newer than the server's.
/// Real Kinto, real vault files, writes with the account's own credentials.
final class SyncMaliciousItemTests: KintoAccountTestCase {
    func testGarbageOverAnItemIsRefusedOnEveryDeviceAndOursGoesBack() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Bank", username: "ann", password: "the real one")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        var garbage = try await raw.record("items", item.id)
        garbage["encrypted"] = SyncMaliciousKeystoreTests.envelopeOfRandomBytes(revisionAhead: 5_000)
        try await raw.put("items", item.id, garbage)

        // Both devices take it in while locked: nothing they can check yet, nothing lost.
        for device in [a, b] {
            await device.lock()
            let locked = await device.sync()
            XCTAssertNil(locked.error, "\(device.name): \(locked.message ?? "")")
        }
        // The first to unlock refuses it and puts its own back; the other then takes that one,
        // an ordinary newer version of what it could read, without a word.
        try await a.unlock()
        let refused = await a.sync()
        XCTAssertEqual(refused.refused, 1, refused.message ?? "")
        XCTAssertEqual(refused.error, .forged)
        let onServer = try await raw.record("items", item.id)
        XCTAssertNotEqual(onServer["encrypted"] as? String, garbage["encrypted"] as? String, "ours went back over it")
        try await b.unlock()
        let taken = await b.sync()
        XCTAssertNil(taken.error, taken.message ?? "")
        XCTAssertEqual(taken.refused, 0)
        for device in [a, b] {
            let items = try await device.items()
            XCTAssertEqual(items[item.id]?.entry.password, "the real one", device.name)
        }
        for device in [a, b] { _ = await device.sync() }
        for device in [a, b] {
            let again = await device.sync()
            XCTAssertNil(again.error, "\(device.name), settled: \(again.message ?? "")")
        }
        try await assertConverged([a, b])
    }

    func testBytesThatAreNoEnvelopeAreRefused() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Mail", password: "p")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        var garbage = try await raw.record("items", item.id)
        garbage["encrypted"] = Data("not an envelope".utf8).base64EncodedString()
        try await raw.put("items", item.id, garbage)

        let report = await b.sync()
        XCTAssertEqual(report.refused, 1, report.message ?? "")
        let items = try await b.items()
        XCTAssertEqual(items[item.id]?.entry.password, "p")
        _ = await a.sync()
        let onA = try await a.items()
        XCTAssertEqual(onA[item.id]?.entry.password, "p")
        try await assertConverged([a, b])
    }

    /// Another item's genuine ciphertext moved under this item's id never opens as this item
    /// (the id is bound in), and no longer destroys it either.
    func testAnotherItemsCiphertextUnderThisIdIsRefused() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let target = try await a.add("Target", password: "target's")
        let other = try await a.add("Other", password: "other's")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        _ = try await a.edit(other.id) { $0.entry.password = "other's, newer" }
        await a.syncExpectingSuccess()
        var swapped = try await raw.record("items", other.id)
        swapped["id"] = target.id
        try await raw.put("items", target.id, swapped)

        await b.lock()
        _ = await b.sync()
        try await b.unlock()
        let report = await b.sync()
        XCTAssertEqual(report.refused, 1, report.message ?? "")
        let items = try await b.items()
        XCTAssertEqual(items[target.id]?.entry.password, "target's")
        XCTAssertEqual(items[other.id]?.entry.password, "other's, newer")
        _ = await a.sync()
        try await assertConverged([a, b])
    }

    /// A real edit from another device, taken in while locked, is authenticated and kept: the
    /// mirror ends without a word.
    func testARealEditTakenWhileLockedIsKept() async throws {
        let (a, b, _) = try await pairOfDevices()
        let item = try await a.add("Shop", password: "first")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        _ = try await a.edit(item.id) { $0.entry.password = "second" }
        await a.syncExpectingSuccess()
        await b.lock()
        await b.syncExpectingSuccess()
        let mirrored = try b.vault.database.read { try VaultDatabase.mirroredItems(in: $0) }
        XCTAssertEqual(mirrored.map(\.id), [item.id], "the version b could read is kept until the unlock")
        try await b.unlock()
        await b.syncExpectingSuccess()
        let after = try b.vault.database.read { try VaultDatabase.mirroredItems(in: $0) }
        XCTAssertEqual(after.map(\.id), [], "authenticated: the mirror ends")
        let items = try await b.items()
        XCTAssertEqual(items[item.id]?.entry.password, "second")
    }
}

extension SyncMaliciousItemTests {
    /// Two devices unlocked at once, both refusing the same garbage: each puts its own back, the
    /// one that lands second meets the first's (a 412, then an ordinary newer version), and they
    /// settle without sending the item back and forth.
    func testTwoDevicesRefusingTheSameGarbageSettle() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Door", password: "1234")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        var garbage = try await raw.record("items", item.id)
        garbage["encrypted"] = SyncMaliciousKeystoreTests.envelopeOfRandomBytes(revisionAhead: 5_000)
        try await raw.put("items", item.id, garbage)
        for device in [a, b] {
            await device.lock()
            _ = await device.sync()
            try await device.unlock()
        }
        // Both refuse before either sends: b's fetch ran before a's push.
        let refusedByB = try await b.vault.checkMirroredItems()
        XCTAssertEqual(refusedByB, 1)
        let onA = await a.sync()
        XCTAssertEqual(onA.error, .forged, onA.message ?? "")
        for _ in 0..<3 { for device in [b, a] { _ = await device.sync() } }
        for device in [a, b] {
            let settled = await device.sync()
            XCTAssertNil(settled.error, "\(device.name): \(settled.message ?? "")")
            XCTAssertEqual(settled.uploaded, 0, "\(device.name) sends nothing more")
            let items = try await device.items()
            XCTAssertEqual(items[item.id]?.entry.password, "1234", device.name)
        }
        try await assertConverged([a, b])
    }
}
