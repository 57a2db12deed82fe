import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// Issue 41, finding 1 in a shared vault: a keystore that is not the vault's (the person's personal
/// one moved into the shared bucket, or garbage under the real parameters) over a member's copy.
/// The copy keeps the keystore it replaced (`Vault.checkMirroredKeystore`): an unlocked sync refuses
/// the stranger (exit 15) and the vault's own goes back; a locked sync takes it in, and the unlock
/// that opens nothing else puts the kept one back. Before, the copy said "Wrong passphrase." for good.
extension SyncMaliciousSharingTests {
    func testThePersonalKeystoreServedInTheSharedBucketReplacesNothing() async throws {
        let clock = TestClock()
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let personal = try await Device.create("personal", in: directory, server: server.url, credentials: credentials, clock: clock)
        await personal.syncExpectingSuccess()
        let (vault, shared) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
        let door = try await shared.add("Door", password: "door-1")
        await shared.syncExpectingSuccess()
        let personalRaw = RawAccount(server: server, credentials: credentials)
        let sharedRaw = RawAccount(server: server, credentials: credentials, bucket: vault.vaultID.bucket)
        let personalKeystore = try await personalRaw.record("keystores", CollectionName.keystoreID)
        let sharedKeystore = try await sharedRaw.record("keystores", CollectionName.keystoreID)
        try await sharedRaw.put("keystores", CollectionName.keystoreID, personalKeystore)

        let report = await shared.sync()
        XCTAssertEqual(report.error, .forged, report.message ?? "")
        let onServer = try await sharedRaw.record("keystores", CollectionName.keystoreID)
        XCTAssertNotEqual(onServer["encrypted"] as? String, personalKeystore["encrypted"] as? String, "the vault's own keystore went back")
        await shared.lock()
        do {
            try await shared.unlock()
        } catch {
            XCTFail("the copy no longer unlocks: \(error)")
        }

        // The vault's own keystore as it was before: older than the one that went back, a replay.
        await shared.lock()
        try await sharedRaw.put("keystores", CollectionName.keystoreID, sharedKeystore)
        let replayed = await shared.sync()
        XCTAssertEqual(replayed.error, .rollback, replayed.message ?? "")
        try await shared.unlock()
        let settled = await shared.sync()
        XCTAssertNotEqual(settled.error, .forged, settled.message ?? "")
        let items = try await shared.items()
        XCTAssertEqual(items[door.id]?.entry.password, "door-1")
    }

    /// Garbage under the keystore's real parameters, taken in by a locked sync: the unlock puts the
    /// kept keystore back instead of saying "Wrong passphrase.", and the next sync refuses the
    /// garbage and sends ours.
    func testAGarbageKeystoreTakenWhileLockedDoesNotLockTheMemberOut() async throws {
        let clock = TestClock()
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let (vault, shared) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
        let door = try await shared.add("Door", password: "door-1")
        await shared.syncExpectingSuccess()
        let sharedRaw = RawAccount(server: server, credentials: credentials, bucket: vault.vaultID.bucket)
        var garbage = try await sharedRaw.record("keystores", CollectionName.keystoreID)
        garbage["encrypted"] = SyncMaliciousKeystoreTests.envelopeOfRandomBytes(revisionAhead: 5_000)
        garbage["wrapped_key"] = SyncMaliciousKeystoreTests.envelopeOfRandomBytes(revisionAhead: 0)
        try await sharedRaw.put("keystores", CollectionName.keystoreID, garbage)

        await shared.lock()
        let locked = await shared.sync()
        XCTAssertNotEqual(locked.error, .forged, "nothing can be told while locked: \(locked.message ?? "")")
        do {
            try await shared.unlock()
        } catch {
            XCTFail("the copy no longer unlocks: \(error)")
        }
        let refused = await shared.sync()
        XCTAssertEqual(refused.error, .forged, refused.message ?? "")
        let onServer = try await sharedRaw.record("keystores", CollectionName.keystoreID)
        XCTAssertNotEqual(onServer["encrypted"] as? String, garbage["encrypted"] as? String, "the vault's own keystore went back")
        await shared.lock()
        try await shared.unlock()
        let items = try await shared.items()
        XCTAssertEqual(items[door.id]?.entry.password, "door-1")
        await shared.syncExpectingSuccess()
    }
}
