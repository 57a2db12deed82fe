import Foundation
import XCTest
@testable import CofferCore
import CofferTestSupport

/// A shared vault's key ring generations (architecture §17): a new generation has new keys for
/// everything, keeps the old ones only to open, and survives its bytes and every merge.
final class KeyRingGenerationTests: XCTestCase {
    private func ring(_ ids: [String]) -> KeyRing {
        let ring = KeyRing()
        for id in ids { ring.addKey(for: id) }
        return ring
    }

    private func roundTrip(_ ring: KeyRing) throws -> KeyRing {
        try ring.serialized().withUnsafeBytes { try KeyRing.parse($0) }
    }

    func testANewGenerationHasNewKeysForEveryItemAndKeepsTheOldOnesRetired() throws {
        let old = ring(["a", "b"])
        let next = old.rekeyed(generation: 2)
        XCTAssertEqual(next.generation, 2)
        XCTAssertEqual(Set(next.itemIDs), ["a", "b"])
        XCTAssertNotEqual(next.hashingKey.bytes, old.hashingKey.bytes)
        for id in ["a", "b"] {
            XCTAssertNotEqual(next.key(for: id)?.bytes, old.key(for: id)?.bytes)
            XCTAssertEqual(next.retiredKeys(for: id).count, 1)
        }
        XCTAssertEqual(next.retiredCount, 2)
        let third = next.rekeyed(generation: 3)
        XCTAssertEqual(third.retiredKeys(for: "a").count, 2, "each earlier generation's key is kept to open files sealed with it")
    }

    func testAGenerationZeroRingKeepsItsOldBytesAndAGenerationalOneRoundTrips() throws {
        let old = ring(["a"])
        XCTAssertEqual(Array(old.serialized().bytes.prefix(4)), Array("CKR1".utf8))
        let next = old.rekeyed(generation: 7)
        let bytes = next.serialized().bytes
        XCTAssertEqual(Array(bytes.prefix(4)), Array("CKR2".utf8))
        let restored = try roundTrip(next)
        XCTAssertEqual(restored.generation, 7)
        XCTAssertEqual(restored.key(for: "a")?.bytes, next.key(for: "a")?.bytes)
        XCTAssertEqual(restored.retiredCount, 1)
        XCTAssertEqual(restored.serialized().bytes, bytes)
        // A retired key twice for one item is malformed, as a duplicate current key is.
        var doubled = bytes
        doubled[doubled.count - 4 - 1 - 2 - 32 + 3] = 2  // the retired count, from 1 to 2…
        doubled += Array(bytes.suffix(2 + 1 + 32))  // …and the same entry again
        XCTAssertThrowsError(try doubled.withUnsafeBytes { try KeyRing.parse($0) })
        for cut in [5, bytes.count - 1] {
            XCTAssertThrowsError(try Array(bytes.prefix(cut)).withUnsafeBytes { try KeyRing.parse($0) })
        }
    }

    func testWhatAnOldKeySealedStillOpensButIsNeverSealedWithIt() throws {
        let old = ring(["item-1"])
        let item = Fixture.item(id: "item-1")
        let sealedBefore = try ItemSealing.seal(item, ring: old, lineage: .first)
        let next = old.rekeyed(generation: 2)
        XCTAssertEqual(try ItemSealing.open(sealedBefore, ring: next), item)
        XCTAssertThrowsError(try ItemSealing.open(sealedBefore, ring: next, allowingRetired: false))
        let sealedAfter = try ItemSealing.seal(item, ring: next, lineage: .first)
        XCTAssertThrowsError(try ItemSealing.open(sealedAfter, ring: old), "the old ring opens what the new one sealed")
        XCTAssertEqual(try ItemSealing.open(sealedAfter, ring: next, allowingRetired: false), item)
    }

    func testMergingRingsOfTwoGenerationsKeepsEveryKeyAndTheLaterGeneration() throws {
        let old = ring(["a"])
        let next = old.rekeyed(generation: 2)
        // Made on a device that had not seen the new generation: "b" was added to the old ring.
        let behind = try roundTrip(old)
        behind.addKey(for: "b")
        let sealedBehind = try ItemSealing.seal(Fixture.item(id: "b"), ring: behind, lineage: .first)

        let adopted = try roundTrip(behind)
        adopted.adopt(newer: try roundTrip(next))
        XCTAssertEqual(adopted.generation, 2)
        XCTAssertEqual(adopted.key(for: "a")?.bytes, next.key(for: "a")?.bytes)
        XCTAssertTrue(adopted.contains("b"), "an item only the old ring knew gets a key of the new generation")
        XCTAssertNotEqual(adopted.key(for: "b")?.bytes, behind.key(for: "b")?.bytes)
        XCTAssertEqual(try ItemSealing.open(sealedBehind, ring: adopted).id, "b")

        let absorbing = try roundTrip(next)
        XCTAssertTrue(absorbing.formUnion(with: behind), "an older ring is absorbed, not refused")
        XCTAssertEqual(absorbing.generation, 2)
        XCTAssertEqual(try ItemSealing.open(sealedBehind, ring: absorbing).id, "b")
        XCTAssertFalse(try roundTrip(next).formUnion(with: try roundTrip(next.rekeyed(generation: 3))),
                       "a later generation is never unioned into an earlier one: it is adopted with its vault key")
    }
}
