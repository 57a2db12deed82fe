import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// A server that is an adversary, against shared vaults (issue 41, architecture §17): it shows one
/// member a roster without the latest revocation, and swaps records between a person's personal
/// bucket and a shared vault's. Real Kinto, copies made in process (`SharedVaultFixture`), writes
/// with a member's own account (what a server can do).
final class SyncMaliciousSharingTests: KintoAccountTestCase {
    private let clock = TestClock()
    private let memo = Argon2idMemo()

    /// `body` with every Argon2id derivation of the test remembered (the copies open the same
    /// member secrets and keystores again and again).
    private func remembering(_ body: () async throws -> Void) async throws {
        try await PassphraseKeys.$stretching.withValue({ [memo] in try memo.stretch($0, $1, $2, $3) }) { try await body() }
    }

    /// A record's body as a PUT sends it (no `last_modified`).
    private static func body(of record: ItemRecord) throws -> [String: Any] {
        var object = try JSONSerialization.jsonObject(with: Data(try RecordCoding.encode(record).utf8)) as? [String: Any] ?? [:]
        object.removeValue(forKey: "last_modified")
        return object
    }

    /// Ann revokes Cat; Bob's device takes the revocation. Then the server serves Bob the roster
    /// from before it (the removal's record deleted) together with an edit Cat signed and the
    /// server wrote. Bob's device keeps the newer roster and refuses the rollback (exit 11,
    /// ROLLBACK) before taking anything; once the roster is whole again, Cat's edit is refused by
    /// the signature gate (exit 15, FORGED) and the real version goes back. Nothing is lost.
    func testARosterWithoutTheLatestRevocationIsRefusedAndTheRemovedMembersEditStaysRefused() async throws {
        try await remembering {
            let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
            let bob = SharedVaultFixture.Member("Bob", credentials: try await server.makeAccount())
            let cat = SharedVaultFixture.Member("Cat", credentials: try await server.makeAccount())
            let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
            let door = try await a.add("Door", password: "door-1")
            await a.syncExpectingSuccess()
            try await vault.invite(bob, by: ann, server: server.url)
            let b = try await vault.join(bob, server: server.url)
            try await vault.invite(cat, by: ann, server: server.url)
            let c = try await vault.join(cat, server: server.url)
            for copy in [a, b] { await copy.syncExpectingSuccess() }

            // Ann revokes Cat (`share revoke`); Bob's device takes the revocation.
            let decided = try a.vault.verifiedRoster()
            let secrets = try XCTUnwrap(try a.vault.memberSecrets(passphrase: secret(Device.passphrase)))
            let revocation = SharedRevocation(client: vault.client(of: ann, server: server.url), vaultID: vault.vaultID,
                                              vault: vault.name, secrets: secrets, raceGrace: 0,
                                              itemsToRewrite: { [a] in try a.vault.itemIDs(signedByNoneOf: $0) })
            let done = try await revocation.remove(cat.keys.id, continuing: decided, decidedOn: decided)
            try a.vault.database.setMeta(.rosterEntries, Vault.rosterMeta(done.entries))
            // Each copy locks when its sync sees the new epoch and takes the epoch's key at the
            // next unlock; Ann's gives the vault new keys, which Bob's then takes.
            for copy in [a, b] {
                _ = await copy.sync()
                await copy.lock()
                try await copy.unlock()
                await copy.syncExpectingSuccess()
            }
            await b.syncExpectingSuccess()
            XCTAssertEqual(try b.vault.database.meta(.shareEpoch), "2", "Bob's copy took the new epoch's key")
            XCTAssertEqual(try b.vault.verifiedRoster(), done.entries, "Bob's device holds the roster with the revocation")
            let removal = try XCTUnwrap(done.entries.lastIndex { $0.change == .remove(personID: cat.keys.id) })

            // Cat edits Door on her copy (signed by her: she does not know yet), and the server
            // writes her version with Ann's account and takes the revocation's entry away.
            _ = try await c.edit(door.id) { $0.entry.password = "door-by-cat" }
            let catsVersion = try XCTUnwrap(try c.vault.database.read {
                try VaultDatabase.pendingChange(.items, door.id, source: .local, in: $0)
            })
            let forged = try RecordCoding.decode(ItemRecord.self, from: catsVersion.record)
            XCTAssertEqual(ItemSignature.claimedSigner(of: forged.signature), cat.keys.id)
            let raw = RawAccount(server: server, credentials: credentials, bucket: vault.vaultID.bucket)
            try await raw.put("items", door.id, try Self.body(of: forged))
            let removalRecord = try await raw.record(RosterRecord.collection, RosterRecord.id(position: removal))
            _ = try await raw.request("DELETE", "buckets/\(vault.vaultID.bucket)/collections/\(RosterRecord.collection)/records/\(RosterRecord.id(position: removal))")

            let refused = await b.sync()
            XCTAssertEqual(refused.error, .rollback, refused.message ?? "")
            XCTAssertTrue(refused.message?.contains("rolled back") == true, refused.message ?? "")
            XCTAssertEqual(try b.vault.verifiedRoster(), done.entries, "Bob's device did not go back to the old roster")
            let onBob = try await b.items()
            XCTAssertEqual(onBob[door.id]?.entry.password, "door-1", "nothing was taken past the refused roster")
            let again = await b.sync()
            XCTAssertEqual(again.error, .rollback, "refused for as long as the server serves it")

            // The server serves the whole roster again (but still Cat's version): the gate refuses
            // Cat's edit and Bob's device puts the real version back.
            try await raw.put(RosterRecord.collection, RosterRecord.id(position: removal), removalRecord)
            let gated = await b.sync()
            XCTAssertEqual(gated.error, .forged, gated.message ?? "")
            XCTAssertEqual(gated.refused, 1)
            let onServer = try await raw.record("items", door.id)
            XCTAssertNotEqual(onServer["encrypted"] as? String, forged.encrypted, "the real version went back")
            for copy in [b, a] { _ = await copy.sync() }
            for copy in [a, b] {
                let settled = await copy.sync()
                XCTAssertNil(settled.error, "\(copy.name): \(settled.message ?? "")")
                let items = try await copy.items()
                XCTAssertEqual(items[door.id]?.entry.password, "door-1", copy.name)
                XCTAssertNil(try RosterChain.verify(entries: try copy.vault.verifiedRoster(), vaultID: vault.vaultID)
                    .get().members[cat.keys.id], "\(copy.name): Cat stays removed")
            }
            try await assertConverged([a, b])
        }
    }

    /// Ann has a personal vault and a shared one on the same account. The server serves each
    /// bucket's item record in the other: over an item of the same vault (the target's id), and
    /// under its own id. The shared copy's signature gate refuses both (unsigned, and not the
    /// version it holds); the personal device's mirror refuses the one over its item at the next
    /// unlocked sync (exit 15) and puts its own back; the stranger under its own id replaces
    /// nothing (no key opens it: it waits, unread). Nothing either device could read is lost.
    func testItemsSwappedBetweenThePersonalAndTheSharedBucketReplaceNothing() async throws {
        try await remembering {
            let (personal, bank, shared, door, personalRaw, sharedRaw) = try await personalAndShared()
            let personalRecord = try await personalRaw.record("items", bank.id)
            let sharedRecord = try await sharedRaw.record("items", door.id)

            // Each bucket gets the other's record over its own item and under the record's own id.
            try await sharedRaw.put("items", door.id, personalRecord)
            try await sharedRaw.put("items", bank.id, personalRecord)
            try await personalRaw.put("items", bank.id, sharedRecord)
            try await personalRaw.put("items", door.id, sharedRecord)

            let gated = await shared.sync()
            XCTAssertEqual(gated.error, .forged, gated.message ?? "")
            XCTAssertEqual(gated.refused, 2, gated.message ?? "")
            let onShared = try await shared.items()
            XCTAssertEqual(onShared.mapValues(\.entry.password), [door.id: "door-1"], "the shared copy took nothing")
            let sharedOnServer = try await sharedRaw.record("items", door.id)
            XCTAssertEqual(sharedOnServer["encrypted"] as? String, sharedRecord["encrypted"] as? String, "its version went back")

            await personal.lock()
            let locked = await personal.sync()
            XCTAssertNil(locked.error, locked.message ?? "")
            try await personal.unlock()
            let mirrored = await personal.sync()
            XCTAssertEqual(mirrored.error, .forged, mirrored.message ?? "")
            XCTAssertEqual(mirrored.refused, 1, mirrored.message ?? "")
            var states: [String: ListedItem.State] = [:]
            for listed in try await personal.vault.listItems() { states[listed.id] = listed.state }
            guard case .ready(let kept) = states[bank.id] else { return XCTFail("Bank: \(String(describing: states[bank.id]))") }
            XCTAssertEqual(kept.entry.password, "bank-1")
            XCTAssertEqual(states[door.id], .waitingForKey, "the shared vault's record opens as nothing here")
            let personalOnServer = try await personalRaw.record("items", bank.id)
            let back = try RecordCoding.decode(ItemRecord.self, from: String(decoding: try JSONSerialization.data(withJSONObject: personalOnServer), as: UTF8.self))
            XCTAssertNotEqual(back.encrypted, sharedRecord["encrypted"] as? String, "ours went back over it")
            let settled = await personal.sync()
            XCTAssertNil(settled.error, "said once: \(settled.message ?? "")")
            let settledShared = await shared.sync()
            XCTAssertNil(settledShared.error, "said once: \(settledShared.message ?? "")")
        }
    }

    /// The shared vault's keystore served in the personal bucket: the personal device refuses it
    /// (a ring its vault key does not open: exit 15), puts its own back, and still opens every
    /// item after a lock and an unlock.
    func testTheSharedKeystoreServedInThePersonalBucketIsRefused() async throws {
        try await remembering {
            let (personal, bank, _, _, personalRaw, sharedRaw) = try await personalAndShared()
            let sharedKeystore = try await sharedRaw.record("keystores", CollectionName.keystoreID)
            try await personalRaw.put("keystores", CollectionName.keystoreID, sharedKeystore)

            await personal.lock()
            let locked = await personal.sync()
            XCTAssertNil(locked.error, locked.message ?? "")
            try await personal.unlock()
            let refused = await personal.sync()
            XCTAssertEqual(refused.error, .forged, refused.message ?? "")
            XCTAssertEqual(refused.refused, 1, refused.message ?? "")
            let personalOnServer = try await personalRaw.record("keystores", CollectionName.keystoreID)
            XCTAssertNotEqual(personalOnServer["encrypted"] as? String, sharedKeystore["encrypted"] as? String, "ours went back")
            let settled = await personal.sync()
            XCTAssertNil(settled.error, "said once: \(settled.message ?? "")")
            await personal.lock()
            try await personal.unlock()
            let items = try await personal.items()
            XCTAssertEqual(items[bank.id]?.entry.password, "bank-1")
        }
    }

    /// Ann's personal vault (Bank) and a shared vault she made (Door) on the same account, both
    /// synced, and raw access to both buckets.
    private func personalAndShared() async throws
        -> (personal: Device, bank: Item, shared: Device, door: Item, personalRaw: RawAccount, sharedRaw: RawAccount) {
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let personal = try await Device.create("personal", in: directory, server: server.url, credentials: credentials, clock: clock)
        let bank = try await personal.add("Bank", password: "bank-1")
        await personal.syncExpectingSuccess()
        let (vault, shared) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
        let door = try await shared.add("Door", password: "door-1")
        await shared.syncExpectingSuccess()
        return (personal, bank, shared, door, RawAccount(server: server, credentials: credentials),
                RawAccount(server: server, credentials: credentials, bucket: vault.vaultID.bucket))
    }
}
