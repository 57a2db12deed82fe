import CofferTestSupport
import Crypto
import Foundation
import XCTest
@testable import CofferCore

/// Items are padded to a size class before they are sealed (issue 41, finding 6): the server
/// sees the class, not the length. The padding is spaces after the JSON, which every older
/// reader skips; an unpadded item, as an older version seals it, opens here.
final class ItemPaddingTests: XCTestCase {
    private let lineage = Lineage.following(nil, now: Fixture.epoch)

    private func ring(with ids: String...) -> KeyRing {
        let ring = KeyRing()
        for id in ids { ring.addKey(for: id) }
        return ring
    }

    private func item(id: String, notes: Int) -> Item {
        var item = Fixture.item(id: id)
        item.entry.notes = String(repeating: "n", count: notes)
        return item
    }

    private func envelope(_ record: ItemRecord) throws -> Data { try XCTUnwrap(Data(base64Encoded: record.encrypted)) }

    func testTheClasses() {
        XCTAssertEqual([0, 1, 512, 513, 1024, 1025, 40_000, 65_536, 65_537, 200_000].map(SizeClass.item),
                       [512, 512, 512, 1024, 1024, 2048, 65_536, 65_536, 131_072, 262_144])
        XCTAssertEqual([0, 3_029, 65_536, 65_537, 300_000, 524_288, 524_289, 16_777_245].map(SizeClass.file),
                       [65_536, 65_536, 65_536, 131_072, 524_288, 524_288, 1_048_576, 17_301_504])
    }

    /// Two items of different lengths in one class seal to the same number of bytes; one past it
    /// to the next class. Envelope: version, lineage, nonce, the padded plaintext, tag.
    func testItemsOfOneClassSealToOneLength() throws {
        let ids = (0..<4).map { _ in Item.newID() }
        let ring = KeyRing()
        ids.forEach { ring.addKey(for: $0) }
        let short = try ItemSealing.seal(item(id: ids[0], notes: 1), ring: ring, lineage: lineage)
        let longer = try ItemSealing.seal(item(id: ids[1], notes: 150), ring: ring, lineage: lineage)
        let large = try ItemSealing.seal(item(id: ids[2], notes: 700), ring: ring, lineage: lineage)
        let header = 1 + Lineage.encodedLength + 12 + 16
        XCTAssertEqual(try envelope(short).count, header + 512)
        XCTAssertEqual(try envelope(longer).count, header + 512)
        XCTAssertEqual(try envelope(large).count, header + 1024)
        XCTAssertEqual(try ItemSealing.open(large, ring: ring), item(id: ids[2], notes: 700))
    }

    /// What an older version does with a padded item: it opens the envelope and decodes the whole
    /// plaintext, with `ItemJSONReader` (unchanged by the padding) or, before that reader, with
    /// Foundation's `JSONDecoder` (`FoundationItemCodec`): both take the item, spaces and all.
    func testAnOlderVersionReadsAPaddedItem() throws {
        let id = Item.newID()
        let ring = ring(with: id)
        let original = item(id: id, notes: 40)
        let record = try ItemSealing.seal(original, ring: ring, lineage: lineage)
        let key = try XCTUnwrap(ring.withKey(for: id) { SymmetricKey(data: $0) })
        let plaintext = try Envelope.open(try envelope(record), symmetricKey: key, collection: "items", id: id)
        let json = try ItemCodec.encode(original)
        XCTAssertEqual(plaintext.count, 512)
        XCTAssertLessThan(json.count, 512, "the item is padded")
        XCTAssertEqual(plaintext.prefix(json.count), json)
        XCTAssertTrue(plaintext.dropFirst(json.count).allSatisfy { $0 == UInt8(ascii: " ") })
        XCTAssertEqual(try ItemCodec.decode(plaintext), original, "the reader of every version since the hand-written one")
        XCTAssertEqual(try FoundationItemCodec.decode(plaintext), original, "JSONDecoder, the reader before it")
    }

    /// An item an older version sealed (its JSON, no padding) opens here as it did.
    func testAnUnpaddedItemFromAnOlderVersionOpens() throws {
        let id = Item.newID()
        let ring = ring(with: id)
        let original = item(id: id, notes: 3)
        var record = try ItemSealing.seal(original, ring: ring, lineage: lineage)
        let key = try XCTUnwrap(ring.withKey(for: id) { SymmetricKey(data: $0) })
        let unpadded = try Envelope.seal(try ItemCodec.encode(original), symmetricKey: key, collection: "items", id: id,
                                         lineage: lineage)
        XCTAssertLessThan(unpadded.count, try envelope(record).count)
        record.encrypted = unpadded.base64EncodedString()
        XCTAssertEqual(try ItemSealing.open(record, ring: ring), original)
    }

    /// Padding of anything but whitespace is no item: refused as tampered, never a crash.
    func testPaddingOfOtherBytesIsRefused() throws {
        let id = Item.newID()
        let ring = ring(with: id)
        var record = try ItemSealing.seal(item(id: id, notes: 3), ring: ring, lineage: lineage)
        let key = try XCTUnwrap(ring.withKey(for: id) { SymmetricKey(data: $0) })
        let padded = try ItemCodec.encode(item(id: id, notes: 3)) + Data(repeating: 0, count: 100)
        record.encrypted = try Envelope.seal(padded, symmetricKey: key, collection: "items", id: id, lineage: lineage)
            .base64EncodedString()
        XCTAssertTrue(isTampered(thrownError { try ItemSealing.open(record, ring: ring) }))
    }
}
