import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// The sealed removal (issue 41, architecture §4 "Removals"): only a holder of the item's key
/// writes one, it removes only its own item, it is never taken for an item version, and an older
/// version reads it as the removal it always knew.
final class RemovalFormatTests: XCTestCase {
    private func ring(with ids: String...) -> KeyRing {
        let ring = KeyRing()
        for id in ids { ring.addKey(for: id) }
        return ring
    }

    func testASealedRemovalOpensOnlyAsItsOwnItemsRemoval() throws {
        let ring = ring(with: "item-1", "item-2")
        let version = try ItemSealing.seal(Fixture.item(id: "item-1"), ring: ring, lineage: .first, lastModified: 5)
        let removal = try XCTUnwrap(try RemovalSealing.seal("item-1", ring: ring, base: version.encrypted, now: Fixture.epoch, signer: nil))
        XCTAssertTrue(removal.isSealedRemoval)
        XCTAssertTrue(try RemovalSealing.isAuthentic(removal, ring: ring))
        XCTAssertEqual(Lineage.of(removal.encrypted)?.isMade(from: version.encrypted), true, "it names the version it removes")

        var moved = removal
        moved.id = "item-2"
        XCTAssertFalse(try RemovalSealing.isAuthentic(moved, ring: ring), "another item's removal removes nothing here")
        XCTAssertFalse(try RemovalSealing.isAuthentic(ItemRecord.tombstone(id: "item-1", lastModified: 9), ring: ring),
                       "a plain tombstone is no sealed removal")
        var itemAsRemoval = ItemRecord.tombstone(id: "item-1", lastModified: 9)
        itemAsRemoval.encrypted = version.encrypted
        XCTAssertFalse(try RemovalSealing.isAuthentic(itemAsRemoval, ring: ring), "an item's version is no removal")
        var removalAsItem = version
        removalAsItem.encrypted = removal.encrypted
        XCTAssertThrowsError(try ItemSealing.open(removalAsItem, ring: ring), "a removal's bytes are no item version")
        XCTAssertThrowsError(try RemovalSealing.isAuthentic(removal, ring: KeyRing())) { error in
            XCTAssertEqual(error as? CoreError, .itemKeyMissing(id: "item-1"), "without the key it cannot be told: it waits")
        }
        XCTAssertNil(try RemovalSealing.seal("item-3", ring: ring, base: nil, now: Fixture.epoch, signer: nil),
                     "no key, no sealed removal")
    }

    func testFlippingAnyByteOfTheRemovalIsRefused() throws {
        let ring = ring(with: "item-1")
        let removal = try XCTUnwrap(try RemovalSealing.seal("item-1", ring: ring, base: nil, now: Fixture.epoch, signer: nil))
        let envelope = try XCTUnwrap(Data(base64Encoded: removal.encrypted))
        for position in envelope.indices {
            var damaged = envelope
            damaged[position] ^= 0x01
            var changed = removal
            changed.encrypted = damaged.base64EncodedString()
            XCTAssertFalse(try RemovalSealing.isAuthentic(changed, ring: ring), "byte \(position)")
        }
    }

    /// What an older version does with the new record: its reader (both `ItemRecordJSON.decode` and
    /// the `Decodable` conformance, up to commit f421e55) returned `ItemRecord.tombstone(id:
    /// lastModified:)` as soon as `deleted` was true, whatever else the record held, and knew
    /// `encrypted` and `signature` as strings. So the sealed removal reads there as exactly the
    /// plain removal it always knew: the same id and time, `deleted` true, and only string members
    /// beside it. And the other way, the plain tombstone an older version (or Kinto's `DELETE`)
    /// leaves reads here as a removal that is not sealed, which devices refuse.
    func testAnOlderVersionReadsASealedRemovalAsARemoval() throws {
        let ring = ring(with: "item-1")
        var removal = try XCTUnwrap(try RemovalSealing.seal("item-1", ring: ring, base: nil, now: Fixture.epoch, signer: nil))
        removal.lastModified = 1_796_000_000_000
        removal.signature = "c2lnbmVk"
        let text = try RecordCoding.encode(removal)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(object["deleted"] as? Bool, true)
        XCTAssertEqual(Set(object.keys), ["deleted", "encrypted", "id", "last_modified", "signature"])
        XCTAssertTrue(object.filter { !["deleted", "last_modified"].contains($0.key) }.values.allSatisfy { $0 is String })
        var olderView = removal
        olderView.encrypted = ""
        olderView.signature = nil
        XCTAssertEqual(olderView, .tombstone(id: "item-1", lastModified: 1_796_000_000_000))
        XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: text), removal, "read back whole here")

        let older = try RecordCoding.decode(ItemRecord.self, from: #"{"deleted":true,"id":"item-1","last_modified":7}"#)
        XCTAssertTrue(older.isPlainTombstone)
        XCTAssertFalse(older.isSealedRemoval)
    }
}
