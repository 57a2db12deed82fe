import CofferTestSupport
import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// A vault's new key ring generation (architecture §17), in one process over a real file: every
/// item sealed again under keys the old ring does not hold, the vault still opening whole.
final class VaultGenerationTests: XCTestCase {
    private let passphrase = "correct horse"

    private func makeVault() throws -> (vault: Vault, path: String) {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase(passphrase), kdf: Fixture.fastKDF(), deviceName: "test")
        return (vault, path)
    }

    private func currentRecords(_ vault: Vault) throws -> [ItemRecord] {
        try vault.database.read { try VaultDatabase.currentItems(in: $0) }.map(\.record)
    }

    /// Nothing is sealed again (a revocation costs O(members), issue 42): every item still opens,
    /// with its retired key, and what is written next is sealed with a key the old ring lacks.
    func testANewGenerationKeepsEveryItemOpenAndSealsWhatIsWrittenNextWithNewKeys() async throws {
        let (vault, path) = try makeVault()
        for id in ["one", "two", "three"] { try await vault.add(Fixture.item(id: id, title: id)) }
        let old = try await vault.unlockedSession().ring
        let oldRing = try old.serialized().withUnsafeBytes { try KeyRing.parse($0) }
        let before = try currentRecords(vault)

        try await vault.rekey(to: 2)
        XCTAssertEqual(try currentRecords(vault), before, "no item is written")
        let titles = try await vault.listItems().compactMap(\.item?.title).sorted()
        XCTAssertEqual(titles, ["one", "three", "two"])
        var edited = try await vault.item("one")
        edited.title = "one, edited"
        try await vault.update(edited)
        let one = try XCTUnwrap(try currentRecords(vault).first { $0.id == "one" })
        XCTAssertThrowsError(try ItemSealing.open(one, ring: oldRing), "an edit after the new generation opens with the old ring")
        let current = try await vault.unlockedSession().ring
        XCTAssertEqual(try ItemSealing.open(one, ring: current, allowingRetired: false).title, "one, edited")
        let two = try XCTUnwrap(try currentRecords(vault).first { $0.id == "two" })
        XCTAssertThrowsError(try ItemSealing.open(two, ring: current, allowingRetired: false), "an untouched item keeps its old key")

        // Another process opens the file whole: the new vault key is wrapped as the old one was.
        let again = try Vault.open(at: path)
        try await again.unlock(passphrase: Fixture.passphrase(passphrase))
        let reopened = try await again.listItems().compactMap(\.item?.title).sorted()
        XCTAssertEqual(reopened, ["one, edited", "three", "two"])
        let generation = try await again.unlockedSession().ring.generation
        XCTAssertEqual(generation, 2)
    }

    func testANewGenerationGivesNoKeyToAnItemWhoseKeyHasNotArrived() async throws {
        let (vault, _) = try makeVault()
        try await vault.add(Fixture.item(id: "mine"))
        let foreignRing = KeyRing()
        foreignRing.addKey(for: "foreign")
        let foreign = try ItemSealing.seal(Fixture.item(id: "foreign"), ring: foreignRing, lineage: .first, lastModified: 5)
        try vault.database.write { db in try VaultDatabase.saveStableItem(foreign, in: db) }
        try await vault.rekey(to: 2)
        let hasForeign = try await vault.unlockedSession().ring.contains("foreign")
        XCTAssertFalse(hasForeign, "a fresh key for an item whose own key is on its way would hide that key forever")
        let listed = try await vault.listItems()
        XCTAssertEqual(listed.first { $0.id == "foreign" }?.state, .waitingForKey)
    }
}

extension VaultGenerationTests {
    /// A keystore of a later generation is taken only up to the epoch whose key this copy holds:
    /// one beyond it was forged by someone holding an old epoch's key, and is refused.
    func testAGenerationBeyondTheRostersEpochIsRefused() async throws {
        let (vault, _) = try makeVault()
        try await vault.add(Fixture.item(id: "one"))
        try vault.database.setMeta(.shareEpoch, "2")
        let session = try await vault.unlockedSession()
        func keystore(generation: UInt32) throws -> KeystoreRecord {
            let ring = try session.ring.serialized().withUnsafeBytes { try KeyRing.parse($0) }.rekeyed(generation: generation)
            return try KeystoreSealing.seal(ring, vaultKey: .random(count: KeyRing.keyLength), keys: session.keys, kdf: session.kdf,
                                            lineage: .first, lastModified: 0)
        }
        let forged = try keystore(generation: 3)
        let refused = await thrownError { try await vault.absorbKeystore(forged, into: session) }
        guard case .tampered? = refused as? CoreError else { return XCTFail("expected tampered, got \(String(describing: refused))") }
        XCTAssertEqual(session.ring.generation, 0, "nothing was taken")
        let taken = try await vault.absorbKeystore(try keystore(generation: 2), into: session)
        guard case .otherVaultKey = taken else { return XCTFail("expected the generation taken, got \(taken)") }
        XCTAssertEqual(session.ring.generation, 2)
    }
}
