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
    private func pair() async throws -> (a: Device, b: Device, raw: RawAccount) {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        return (a, b, RawAccount(server: server, credentials: credentials))
    }

    func testGarbageOverAnItemIsRefusedOnEveryDeviceAndOursGoesBack() async throws {
        let (a, b, raw) = try await pair()
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
        for device in [a, b] {
            try await device.unlock()
            let report = await device.sync()
            XCTAssertEqual(report.refused, 1, "\(device.name): \(report.message ?? "")")
            XCTAssertEqual(report.error, .forged, device.name)
            let items = try await device.items()
            XCTAssertEqual(items[item.id]?.entry.password, "the real one", device.name)
        }
        let onServer = try await raw.record("items", item.id)
        XCTAssertNotEqual(onServer["encrypted"] as? String, garbage["encrypted"] as? String, "ours went back over it")
        for device in [a, b] { _ = await device.sync() }
        for device in [a, b] {
            let again = await device.sync()
            XCTAssertNil(again.error, "\(device.name), settled: \(again.message ?? "")")
        }
        try await assertConverged([a, b])
    }

    func testBytesThatAreNoEnvelopeAreRefused() async throws {
        let (a, b, raw) = try await pair()
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
        let (a, b, raw) = try await pair()
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
        let (a, b, _) = try await pair()
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
