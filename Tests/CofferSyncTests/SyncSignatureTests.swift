import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// A shared vault's item signatures on the real Kinto, in process (issue 42, architecture §17
/// "Signatures"): the fetch step's gate against what a roster step saw a moment before.
final class SyncSignatureTests: KintoAccountTestCase {
    /// Bob is added and writes between Ann's roster step and her fetch of the items (here: her
    /// fetch runs alone, her stored roster without him). His version names a signer her roster
    /// does not know, so the roster is read again first: his item is taken, not refused — a
    /// refusal would move her marker past it for good.
    func testAVersionByAMemberAddedSinceTheRosterStepIsTakenNotRefused() async throws {
        let clock = TestClock()
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let bob = SharedVaultFixture.Member("Bob", credentials: try await server.makeAccount())
        let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
        await a.syncExpectingSuccess()
        try await vault.invite(bob, by: ann, server: server.url)
        let b = try await vault.join(bob, server: server.url)
        let id = try await b.add("By Bob", password: "pb").id
        await b.syncExpectingSuccess()
        XCTAssertEqual(try a.vault.verifiedRoster().count, 1, "Ann's device has not seen Bob's add")

        let context = SyncContext(vault: a.vault, client: vault.client(of: ann, server: server.url))
        let fetched = try await FetchStep.run(.items, context)
        XCTAssertEqual(fetched.refused, 0)
        XCTAssertEqual(fetched.received, 1)
        XCTAssertEqual(try a.vault.verifiedRoster().count, 2, "the roster was read again before judging")
        let stable = try a.vault.database.read { try VaultDatabase.stableItem(id, in: $0) }
        XCTAssertEqual(ItemSignature.claimedSigner(of: stable?.signature), bob.keys.id)
        await a.syncExpectingSuccess()
        let onA = try await a.items()
        XCTAssertEqual(onA[id]?.entry.password, "pb")
    }

    /// Someone the roster never listed signs a version (the server, with a key of its own): the
    /// roster read again does not list them either, so it is refused and Ann's version goes back.
    func testAVersionSignedByAStrangerIsRefusedAfterTheRosterIsReadAgain() async throws {
        let clock = TestClock()
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
        let id = try await a.add("Door", password: "real").id
        await a.syncExpectingSuccess()
        let raw = RawAccount(server: server, credentials: credentials, bucket: vault.vaultID.bucket)
        let served = try XCTUnwrap(try a.vault.database.read { try VaultDatabase.stableItem(id, in: $0) })
        var forged = served
        forged.isActive = false
        forged = try ItemSignature.signed(forged, as: PersonKeys(), in: vault.vaultID)
        try await raw.put("items", id, try Self.body(of: forged))

        let report = await a.sync()
        XCTAssertEqual(report.error, .forged, report.message ?? "")
        XCTAssertEqual(report.refused, 1)
        let onServer = try await raw.record("items", id)
        XCTAssertEqual(onServer["signature"] as? String, served.signature, "Ann's version went back")
        XCTAssertEqual(onServer["active"] as? String, "active")
        await a.syncExpectingSuccess()
    }

    /// A removal in a shared vault is signed as every version is (issue 41): Bob's is taken by
    /// Ann's device; the same sealed removal signed by someone the roster does not list removes
    /// nothing, and the item goes back.
    func testAMembersRemovalIsTakenAndAStrangersIsRefused() async throws {
        let clock = TestClock()
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let bob = SharedVaultFixture.Member("Bob", credentials: try await server.makeAccount())
        let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
        let removed = try await a.add("Old", password: "o").id
        let target = try await a.add("Door", password: "real").id
        await a.syncExpectingSuccess()
        try await vault.invite(bob, by: ann, server: server.url)
        let b = try await vault.join(bob, server: server.url)
        try await b.remove(removed)
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        let afterBobs = try await a.items()
        XCTAssertNil(afterBobs[removed], "a current member's removal is taken")

        try await b.remove(target)
        let bobsRemoval = try XCTUnwrap(try b.vault.database.read {
            try VaultDatabase.pendingChange(.items, target, source: .local, in: $0)
        })
        let stranger = try ItemSignature.signed(try RecordCoding.decode(ItemRecord.self, from: bobsRemoval.record),
                                                as: PersonKeys(), in: vault.vaultID)
        let raw = RawAccount(server: server, credentials: credentials, bucket: vault.vaultID.bucket)
        try await raw.put("items", target, try Self.body(of: stranger))
        let report = await a.sync()
        XCTAssertEqual(report.error, .forged, report.message ?? "")
        XCTAssertEqual(report.refused, 1)
        let afterStrangers = try await a.items()
        XCTAssertEqual(afterStrangers[target]?.entry.password, "real")
        let onServer = try await raw.record("items", target)
        XCTAssertNil(onServer["deleted"], "Ann's version went back")
    }

    private static func body(of record: ItemRecord) throws -> [String: Any] {
        var object = try JSONSerialization.jsonObject(with: Data(try RecordCoding.encode(record).utf8)) as? [String: Any] ?? [:]
        object.removeValue(forKey: "last_modified")
        return object
    }
}
