import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// A server that is an adversary, against the keystore (issue 41, findings 1, 2 and 4): it writes
/// with the account's own credentials, as a compromised server can. Nothing it sends replaces the
/// keystore a device can open until an unlocked sync has authenticated it; key material only grows;
/// an old passphrase wrapping never comes back. Real Kinto, real vault files.
final class SyncMaliciousKeystoreTests: KintoAccountTestCase {
    /// Finding 1: a keystore with the real `kdf`, a random verifier and wrapped key, and a ring of
    /// random bytes behind a real envelope header whose revision is in the future.
    func testAGarbageKeystoreIsRefusedAndOursGoesBackToTheServer() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Bank", password: "kept")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        var garbage = try await raw.record("keystores", CollectionName.keystoreID)
        garbage["verifier"] = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        garbage["wrapped_key"] = Data((0..<60).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        garbage["encrypted"] = Self.envelopeOfRandomBytes(revisionAhead: 5_000)
        garbage["wrapping_tag"] = nil
        garbage["wrapping_revision"] = nil
        try await raw.put("keystores", CollectionName.keystoreID, garbage)

        // Locked, B cannot check it: it waits beside the stable keystore, which stays.
        await b.lock()
        let stableBefore = try b.vault.database.read { try VaultDatabase.stableKeystore(in: $0) }
        let locked = await b.sync()
        XCTAssertNil(locked.error, locked.message ?? "")
        let stableAfter = try b.vault.database.read { try VaultDatabase.stableKeystore(in: $0) }
        XCTAssertEqual(stableAfter, stableBefore, "a locked sync put nothing over the stable keystore")
        try await b.unlock()
        let afterUnlock = try await b.items()
        XCTAssertEqual(afterUnlock[item.id]?.entry.password, "kept", "the right passphrase still opens B")

        // Unlocked, B refuses it, names it, and puts its own back.
        let unlocked = await b.sync()
        XCTAssertEqual(unlocked.refused, 1)
        XCTAssertEqual(unlocked.error, .forged)
        XCTAssertTrue(unlocked.message?.contains("not ours") == true, unlocked.message ?? "")
        let onServer = try await raw.record("keystores", CollectionName.keystoreID)
        XCTAssertNotEqual(onServer["encrypted"] as? String, garbage["encrypted"] as? String, "ours went back over it")
        let again = await b.sync()
        XCTAssertNil(again.error, "said once: \(again.message ?? "")")

        // A, unlocked the whole time, takes B's keystore back and loses nothing either.
        let onA = await a.sync()
        XCTAssertNil(onA.error, onA.message ?? "")
        for device in [a, b] {
            await device.lock()
            try await device.unlock()
            let items = try await device.items()
            XCTAssertEqual(items[item.id]?.entry.password, "kept", device.name)
        }
        try await assertConverged([a, b])
    }

    /// Finding 1 on a device that syncs unlocked when the garbage arrives (`sync --unlock`).
    func testAGarbageKeystoreMeetingAnUnlockedDeviceChangesNothing() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Mail", password: "p")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        var garbage = try await raw.record("keystores", CollectionName.keystoreID)
        garbage["encrypted"] = "not an envelope at all"
        try await raw.put("keystores", CollectionName.keystoreID, garbage)

        let report = await a.sync()
        XCTAssertEqual(report.error, .forged, report.message ?? "")
        await b.syncExpectingSuccess()
        for device in [a, b] {
            await device.lock()
            try await device.unlock()
            let items = try await device.items()
            XCTAssertEqual(items[item.id]?.entry.password, "p", device.name)
        }
    }

    /// A plain Kinto DELETE of the keystore removes nothing: ours is created again.
    func testADeletedKeystoreIsRefusedAndCreatedAgain() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let item = try await a.add("Shop", password: "p")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        _ = try await raw.request("DELETE", "buckets/default/collections/keystores/records/\(CollectionName.keystoreID)")

        let report = await b.sync()
        XCTAssertEqual(report.refused, 1, report.message ?? "")
        XCTAssertEqual(report.error, .forged)
        let ids = try await raw.ids("keystores")
        XCTAssertEqual(ids, [CollectionName.keystoreID], "the keystore is on the server again")
        await a.syncExpectingSuccess()
        let c = try await Device.join("c", in: directory, server: server.url, credentials: credentials)
        let onC = try await c.items()
        XCTAssertEqual(onC[item.id]?.entry.password, "p", "a new device still joins")
    }

    /// Finding 2: a joining device served the keystore from before X2 adds X3 and pushes its ring;
    /// the others unite it with theirs, so X2's key survives everywhere and reaches the newcomer.
    func testAnOldKeystoreServedToAJoiningDeviceLosesNoKey() async throws {
        let (a, b, raw) = try await pairOfDevices()
        let x1 = try await a.add("X1", password: "1")
        await a.syncExpectingSuccess()
        let beforeX2 = try await raw.record("keystores", CollectionName.keystoreID)
        let x2 = try await a.add("X2", password: "2")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()

        try await raw.put("keystores", CollectionName.keystoreID, beforeX2)
        let c = try await Device.join("c", in: directory, server: server.url, credentials: credentials)
        let x3 = try await c.add("X3", password: "3")
        await c.sync()

        for device in [a, b] { _ = await device.sync() }
        _ = await c.sync()
        for device in [a, b, c] { _ = await device.sync() }
        for device in [a, b, c] {
            await device.lock()
            try await device.unlock()
            let items = try await device.items()
            XCTAssertEqual(items[x1.id]?.entry.password, "1", device.name)
            XCTAssertEqual(items[x2.id]?.entry.password, "2", "\(device.name) kept X2's key")
            XCTAssertEqual(items[x3.id]?.entry.password, "3", device.name)
            let listed = try await device.vault.listItems()
            let waiting = listed.filter { $0.state == .waitingForKey }
            XCTAssertEqual(waiting.map(\.id), [], "\(device.name): no item waits for a key")
        }
        // Settled: no device sends its keystore back and forth.
        for device in [a, b, c] { _ = await device.sync() }
        for device in [a, b, c] {
            let idle = await device.sync()
            XCTAssertNil(idle.error, idle.message ?? "")
            XCTAssertEqual(idle.uploaded, 0, "\(device.name) sends nothing more")
        }
    }

    /// Finding 4: after a passphrase change, the server pairs the current ring with the old
    /// passphrase's wrapping. No device takes it; the old passphrase never opens again, also while
    /// the served keystore waits on a locked device; the new one always does.
    func testAnOldPassphraseWrappingServedWithTheNewRingIsNeverTaken() async throws {
        let (a, b, raw) = try await pairOfDevices()
        _ = try await a.add("Anything")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let oldWrapping = try await raw.record("keystores", CollectionName.keystoreID)
        try await a.vault.changePassphrase(to: secret("a brand new passphrase"), kdf: Device.fastKDF)
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        await b.lock()

        var rolledBack = try await raw.record("keystores", CollectionName.keystoreID)
        let newVerifier = try XCTUnwrap(rolledBack["verifier"] as? String)
        for member in ["kdf", "verifier", "wrapped_key", "wrapping_tag", "wrapping_revision"] { rolledBack[member] = oldWrapping[member] }
        try await raw.put("keystores", CollectionName.keystoreID, rolledBack)

        // B, locked, holds it beside its own: the old passphrase does not open B.
        let locked = await b.sync()
        XCTAssertNil(locked.error, locked.message ?? "")
        do {
            try await b.unlock()
            XCTFail("the old passphrase opened B while the served keystore waited")
        } catch CoreError.wrongPassphrase {}
        try await b.unlock("a brand new passphrase")
        _ = await b.sync()

        // A, unlocked, keeps its wrapping and puts it back; the server ends with the new one.
        _ = await a.sync()
        let onServer = try await raw.record("keystores", CollectionName.keystoreID)
        XCTAssertEqual(onServer["verifier"] as? String, newVerifier, "the newer wrapping is back on the server")
        for device in [a, b] {
            await device.lock()
            do {
                try await device.unlock()
                XCTFail("the old passphrase opened \(device.name)")
            } catch CoreError.wrongPassphrase {}
            try await device.unlock("a brand new passphrase")
        }
        try await assertConverged([a, b])
    }

    /// A tag moved onto another wrapping, or a revision raised, fails to check out: not taken.
    func testAForgedWrappingTagIsNotTaken() async throws {
        let (a, b, raw) = try await pairOfDevices()
        await b.syncExpectingSuccess()
        let original = try await raw.record("keystores", CollectionName.keystoreID)
        try await a.vault.changePassphrase(to: secret("second passphrase"), kdf: Device.fastKDF)
        await a.syncExpectingSuccess()
        var forged = try await raw.record("keystores", CollectionName.keystoreID)
        let secondVerifier = try XCTUnwrap(forged["verifier"] as? String)
        // The first wrapping, claiming a revision later than the second's, under the second's tag.
        for member in ["kdf", "verifier", "wrapped_key"] { forged[member] = original[member] }
        forged["wrapping_revision"] = ((forged["wrapping_revision"] as? Int64) ?? 0) + 1_000_000
        try await raw.put("keystores", CollectionName.keystoreID, forged)

        _ = await a.sync()
        let onServer = try await raw.record("keystores", CollectionName.keystoreID)
        XCTAssertEqual(onServer["verifier"] as? String, secondVerifier)
        await a.lock()
        do {
            try await a.unlock()
            XCTFail("the first passphrase opened A")
        } catch CoreError.wrongPassphrase {}
        try await a.unlock("second passphrase")
    }

    /// A version-2 envelope's header (version byte, revision `revisionAhead` ms past now, a zero
    /// parent digest) followed by random bytes: it reads as a newer keystore while locked.
    static func envelopeOfRandomBytes(revisionAhead: UInt64) -> String {
        var bytes = Data([2])
        let revision = UInt64(Date().timeIntervalSince1970 * 1000) + revisionAhead
        withUnsafeBytes(of: revision.bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(Data(count: Lineage.digestLength))
        bytes.append(Data((0..<200).map { _ in UInt8.random(in: 0...255) }))
        return bytes.base64EncodedString()
    }
}
