import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

final class ItemSealingTests: XCTestCase {
    private func ring(with ids: String...) -> KeyRing {
        let ring = KeyRing()
        for id in ids { ring.addKey(for: id) }
        return ring
    }

    func testRoundTrip() throws {
        var item = Fixture.item(id: "item-1")
        item.entry.totp = "otpauth://totp/x"
        item.lastUsed = Timestamp(milliseconds: Fixture.epoch.milliseconds + 5)
        item.replaceEntry(with: Entry(username: "bob", password: "new"), at: Fixture.epoch)
        let ring = ring(with: "item-1")
        let record = try ItemSealing.seal(item, ring: ring, lineage: .first, lastModified: 42)
        XCTAssertEqual(record.id, "item-1")
        XCTAssertEqual(record.lastModified, 42)
        XCTAssertTrue(record.isActive)
        // The sealed bytes, not their base64 (which spells "bob" by chance about once in 250 runs).
        let sealed = try XCTUnwrap(Data(base64Encoded: record.encrypted))
        XCTAssertNil(sealed.range(of: Data("bob".utf8)))
        XCTAssertNil(sealed.range(of: Data("otpauth".utf8)))
        XCTAssertEqual(try ItemSealing.open(record, ring: ring), item)
    }

    func testFlippingAnyByteOfTheEnvelopeIsRejected() throws {
        let ring = ring(with: "item-1")
        let record = try ItemSealing.seal(Fixture.item(id: "item-1"), ring: ring, lineage: .first)
        let envelope = try XCTUnwrap(Data(base64Encoded: record.encrypted))
        XCTAssertGreaterThan(envelope.count, 100)
        for position in envelope.indices {
            var damaged = envelope
            damaged[position] ^= 0x01
            var changed = record
            changed.encrypted = damaged.base64EncodedString()
            XCTAssertTrue(isTampered(thrownError { try ItemSealing.open(changed, ring: ring) }), "byte \(position)")
        }
    }

    func testCiphertextMovedToAnotherIDIsRejected() throws {
        let ring = ring(with: "item-1", "item-2")
        var record = try ItemSealing.seal(Fixture.item(id: "item-1"), ring: ring, lineage: .first)
        record.id = "item-2"
        XCTAssertTrue(isTampered(thrownError { try ItemSealing.open(record, ring: ring) }))
    }

    func testCiphertextMovedToAnotherIDWithTheSameKeyIsRejected() throws {
        // Even if two ids shared a key, the associated data binds the id.
        let key = SecureBuffer.random(count: 32)
        let plaintext = try ItemCodec.encode(Fixture.item(id: "item-1"))
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "item-1")
        XCTAssertTrue(isTampered(thrownError { try Envelope.open(sealed, key: key, collection: "items", id: "item-2") }))
    }

    func testWrongKeyIsRejected() throws {
        let record = try ItemSealing.seal(Fixture.item(id: "item-1"), ring: ring(with: "item-1"), lineage: .first)
        XCTAssertTrue(isTampered(thrownError { try ItemSealing.open(record, ring: self.ring(with: "item-1")) }))
    }

    func testMissingKeyIsReportedAsSuch() throws {
        let record = try ItemSealing.seal(Fixture.item(id: "item-1"), ring: ring(with: "item-1"), lineage: .first)
        XCTAssertEqual(thrownError { try ItemSealing.open(record, ring: KeyRing()) } as? CoreError,
                       .itemKeyMissing(id: "item-1"))
        XCTAssertEqual(thrownError { try ItemSealing.seal(Fixture.item(id: "item-9"), ring: KeyRing(), lineage: .first) } as? CoreError,
                       .itemKeyMissing(id: "item-9"))
    }

    func testNonBase64CiphertextIsTampered() throws {
        let ring = ring(with: "item-1")
        var record = try ItemSealing.seal(Fixture.item(id: "item-1"), ring: ring, lineage: .first)
        record.encrypted = "%%% not base64 %%%"
        XCTAssertTrue(isTampered(thrownError { try ItemSealing.open(record, ring: ring) }))
    }

    func testAuthenticDataOfTheWrongShapeIsTampered() throws {
        // Sealed correctly under the item's key, but not an item, or another item's data.
        let ring = ring(with: "item-1")
        let key = try XCTUnwrap(ring.key(for: "item-1"))
        var record = try ItemSealing.seal(Fixture.item(id: "item-1"), ring: ring, lineage: .first)
        record.encrypted = try Envelope.seal(Data("{}".utf8), key: key, collection: "items", id: "item-1").base64EncodedString()
        XCTAssertTrue(isTampered(thrownError { try ItemSealing.open(record, ring: ring) }))
        let other = try ItemCodec.encode(Fixture.item(id: "item-2"))
        record.encrypted = try Envelope.seal(other, key: key, collection: "items", id: "item-1").base64EncodedString()
        XCTAssertTrue(isTampered(thrownError { try ItemSealing.open(record, ring: ring) }))
    }

    func testSearchHashesAreNormalisedKeyedAndSorted() throws {
        let ring = ring(with: "a", "b")
        let first = try ItemSealing.seal(Fixture.item(id: "a", origins: ["https://Example.com/login", "example.com"],
                                                      tags: [" Work ", "work", "home"]), ring: ring, lineage: .first)
        XCTAssertEqual(first.originHashes.count, 1)
        XCTAssertEqual(first.tagHashes.count, 2)
        XCTAssertEqual(first.tagHashes, first.tagHashes.sorted())
        XCTAssertEqual(first.originHashes, [SearchHash.hash("example.com", key: ring.hashingKey)])

        let second = try ItemSealing.seal(Fixture.item(id: "b", origins: ["EXAMPLE.com/other"]), ring: ring, lineage: .first)
        XCTAssertEqual(second.originHashes, first.originHashes)
        let otherRing = KeyRing()
        otherRing.addKey(for: "a")
        XCTAssertNotEqual(try ItemSealing.seal(Fixture.item(id: "a"), ring: otherRing, lineage: .first).originHashes, first.originHashes)
    }

    func testDisabledItemIsNotActive() throws {
        let ring = ring(with: "a")
        var item = Fixture.item(id: "a")
        item.disabled = true
        XCTAssertFalse(try ItemSealing.seal(item, ring: ring, lineage: .first).isActive)
    }
}
