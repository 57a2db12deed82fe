import Foundation
import XCTest
@testable import CofferCore
import CofferTestSupport

/// A personal vault's new keys at a device's removal (architecture §9): the ring keeps the earlier
/// vault keys and a commitment to the versions the vault had; a version only a retired key opens
/// is taken only if committed; the keystore is vouched for to devices on the earlier keys.
final class KeyRingSuccessionTests: XCTestCase {
    private func roundTrip(_ ring: KeyRing) throws -> KeyRing {
        try ring.serialized().withUnsafeBytes { try KeyRing.parse($0) }
    }

    /// A ring of `ids` and its successor after a removal, committed to `committed`.
    private func succession(_ ids: [String], committing committed: [(String, String)]) -> (old: KeyRing, new: KeyRing, oldVaultKey: SecureBuffer) {
        let old = KeyRing()
        for id in ids { old.addKey(for: id) }
        let oldVaultKey = SecureBuffer.random(count: KeyRing.keyLength)
        let next = old.rekeyed(generation: 1, keepingHashingKey: true)
        next.rememberVaultKey(oldVaultKey)
        next.committed = Set(committed.map { KeyRing.CommittedVersion(itemID: $0.0, encrypted: Data($0.1.utf8)) })
        return (old, next, oldVaultKey)
    }

    func testTheSuccessionRoundTripsAndAShortenedOneIsMalformed() throws {
        let (old, ring, oldVaultKey) = succession(["item-1"], committing: [("item-1", "a version's ciphertext")])
        XCTAssertEqual(ring.hashingKey.bytes, old.hashingKey.bytes, "the synced search hashes stay findable")
        let bytes = ring.serialized().bytes
        XCTAssertEqual(Array(bytes.prefix(4)), Array("CKR3".utf8))
        let restored = try roundTrip(ring)
        XCTAssertEqual(restored.previousVaultKeys.map(\.bytes), [oldVaultKey.bytes])
        XCTAssertEqual(restored.committed, ring.committed)
        XCTAssertEqual(restored.deviceRoot?.bytes, oldVaultKey.bytes, "devices keep the first vault key")
        XCTAssertEqual(restored.serialized().bytes, bytes)
        for cut in [bytes.count - 1, bytes.count - 16] {
            XCTAssertThrowsError(try Array(bytes.prefix(cut)).withUnsafeBytes { try KeyRing.parse($0) })
        }
        // A shared vault's ring (no succession) keeps CKR2's bytes.
        XCTAssertEqual(Array(old.rekeyed(generation: 2).serialized().bytes.prefix(4)), Array("CKR2".utf8))
    }

    func testOnlyACommittedVersionOpensWithARetiredKey() throws {
        let item = Fixture.item(id: "item-1")
        let before = KeyRing()
        before.addKey(for: "item-1")
        let committed = try ItemSealing.seal(item, ring: before, lineage: .first)
        var edited = item
        edited.entry.password = "written later with the old key"
        let uncommitted = try ItemSealing.seal(edited, ring: before, lineage: .following(committed.encrypted, now: .now()))
        let ring = before.rekeyed(generation: 1, keepingHashingKey: true)
        ring.committed = [KeyRing.CommittedVersion(itemID: "item-1", encrypted: Data(committed.encrypted.utf8))]
        XCTAssertEqual(try ItemSealing.openFetched(committed, ring: ring), item)
        XCTAssertThrowsError(try ItemSealing.openFetched(uncommitted, ring: ring)) { error in
            guard case CoreError.tampered = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try ItemSealing.open(uncommitted, ring: ring), edited, "this device's own history still opens")
        let current = try ItemSealing.seal(edited, ring: ring, lineage: .first)
        XCTAssertEqual(try ItemSealing.openFetched(current, ring: ring), edited)
        // The same for a removal: one made with the old key is taken only if committed.
        let removal = try XCTUnwrap(try RemovalSealing.seal("item-1", ring: before, base: committed.encrypted, now: .now(), signer: nil))
        XCTAssertFalse(try RemovalSealing.isAuthentic(removal, ring: ring))
        XCTAssertTrue(try RemovalSealing.isAuthentic(removal, ring: ring, judgingRetired: false))
        ring.committed?.insert(KeyRing.CommittedVersion(itemID: "item-1", encrypted: Data(removal.encrypted.utf8)))
        XCTAssertTrue(try RemovalSealing.isAuthentic(removal, ring: ring))
        // Without a commitment (a shared vault, whose signatures judge), a retired key opens anything.
        let shared = before.rekeyed(generation: 1)
        XCTAssertEqual(try ItemSealing.openFetched(uncommitted, ring: shared), edited)
    }

    func testTheKeystoreIsVouchedForToTheEarlierVaultKeyOnly() throws {
        let (_, ring, oldVaultKey) = succession(["item-1"], committing: [])
        let keys = try PassphraseKeys(passphrase: SecureBuffer(copying: Array("new".utf8)), parameters: Fixture.fastKDF())
        let record = try KeystoreSealing.seal(ring, vaultKey: .random(count: KeyRing.keyLength), keys: keys, kdf: Fixture.fastKDF(),
                                              lineage: .first, lastModified: 0)
        XCTAssertEqual(record.succession?.count, 1)
        XCTAssertTrue(KeystoreSuccession.succeeds(record, vaultKey: oldVaultKey))
        XCTAssertFalse(KeystoreSuccession.succeeds(record, vaultKey: .random(count: KeyRing.keyLength)), "a stranger's key")
        var moved = record
        moved.wrappedKey = "another wrapping"
        XCTAssertFalse(KeystoreSuccession.succeeds(moved, vaultKey: oldVaultKey), "the tag binds the wrapping")
        let text = try RecordCoding.encode(record)
        XCTAssertEqual(try RecordCoding.decode(KeystoreRecord.self, from: text).succession, record.succession)
        // An older version's reader ignores the member; garbage in it reads as none.
        let garbage = text.replacingOccurrences(of: "\"succession\":[", with: "\"succession\":[1,")
        XCTAssertNil(try RecordCoding.decode(KeystoreRecord.self, from: garbage).succession)
    }
}
