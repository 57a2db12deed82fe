import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// Issue 41, finding 1, in a shared vault: the server puts a garbage keystore over a shared
/// vault's. It waits beside the stable one while locked (a member's copy still unlocks), and an
/// unlocked sync refuses it when it claims the wrapping of the epoch this copy holds; one with
/// another salt (a lagging member's, wrapped under an older epoch's key, looks the same) waits
/// and harms nothing. Real Kinto, real files, the shared-vault fixture.
final class SyncMaliciousSharedKeystoreTests: KintoAccountTestCase {
    private func garbage(from raw: RawAccount, salt: String? = nil) async throws -> [String: Any] {
        var record = try await raw.record("keystores", CollectionName.keystoreID)
        record["verifier"] = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        record["wrapped_key"] = Data((0..<60).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        record["encrypted"] = SyncMaliciousKeystoreTests.envelopeOfRandomBytes(revisionAhead: 5_000)
        record["wrapping_tag"] = nil
        record["wrapping_revision"] = nil
        if let salt, var kdf = record["kdf"] as? [String: Any] {
            kdf["salt"] = salt
            record["kdf"] = kdf
        }
        return record
    }

    func testAGarbageKeystoreIsHeldWhileLockedAndRefusedUnlocked() async throws {
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: TestClock())
        let item = try await a.add("Door", password: "kept")
        await a.syncExpectingSuccess()
        let raw = RawAccount(server: server, credentials: credentials, bucket: vault.vaultID.bucket)
        let forged = try await garbage(from: raw)
        try await raw.put("keystores", CollectionName.keystoreID, forged)

        await a.lock()
        let stableBefore = try a.vault.database.read { try VaultDatabase.stableKeystore(in: $0) }
        let locked = await a.sync()
        XCTAssertNil(locked.error, locked.message ?? "")
        XCTAssertEqual(try a.vault.database.read { try VaultDatabase.stableKeystore(in: $0) }, stableBefore,
                       "a locked sync put nothing over the stable keystore")
        try await a.unlock()
        let opened = try await a.items()
        XCTAssertEqual(opened[item.id]?.entry.password, "kept", "the passphrase still opens the copy")

        let unlocked = await a.sync()
        XCTAssertEqual(unlocked.error, .forged, unlocked.message ?? "")
        XCTAssertEqual(unlocked.refused, 1)
        let onServer = try await raw.record("keystores", CollectionName.keystoreID)
        XCTAssertNotEqual(onServer["encrypted"] as? String, forged["encrypted"] as? String, "ours went back over it")
        await a.syncExpectingSuccess()
        await a.lock()
        try await a.unlock()
        let reopened = try await a.items()
        XCTAssertEqual(reopened[item.id]?.entry.password, "kept")
    }

    func testAKeystoreUnderAnotherWrappingWaitsAndHarmsNothing() async throws {
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: TestClock())
        let item = try await a.add("Door", password: "kept")
        await a.syncExpectingSuccess()
        let raw = RawAccount(server: server, credentials: credentials, bucket: vault.vaultID.bucket)
        try await raw.put("keystores", CollectionName.keystoreID,
                          try await garbage(from: raw, salt: Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()))
        for _ in 0..<2 {
            let report = await a.sync()
            XCTAssertNil(report.error, report.message ?? "")
            await a.lock()
            try await a.unlock()
            let items = try await a.items()
            XCTAssertEqual(items[item.id]?.entry.password, "kept")
        }
    }
}
