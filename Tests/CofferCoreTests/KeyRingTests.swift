import Foundation
import XCTest
@testable import CofferCore
import CofferTestSupport

final class KeyRingTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) throws -> KeyRing { try bytes.withUnsafeBytes { try KeyRing.parse($0) } }

    private func ring(_ ids: [String]) -> KeyRing {
        let ring = KeyRing()
        for id in ids { ring.addKey(for: id) }
        return ring
    }

    func testAddKeyOnlyOncePerID() {
        let ring = KeyRing()
        XCTAssertTrue(ring.addKey(for: "a"))
        let key = ring.key(for: "a")?.bytes
        XCTAssertFalse(ring.addKey(for: "a"))
        XCTAssertEqual(ring.key(for: "a")?.bytes, key)
        XCTAssertEqual(ring.count, 1)
        XCTAssertTrue(ring.contains("a"))
        XCTAssertNil(ring.key(for: "b"))
    }

    func testManyKeysStayDistinctAndRetrievableAsTheRingGrows() {
        let ids = (0..<200).map { "item-\($0)" }
        let ring = ring(ids)
        let keys = ids.map { ring.key(for: $0)!.bytes }
        XCTAssertEqual(ring.count, 200)
        XCTAssertEqual(Set(keys).count, 200)
        XCTAssertTrue(keys.allSatisfy { $0.count == 32 && $0 != Array(repeating: 0, count: 32) })
    }

    func testSerializationRoundTrip() throws {
        let ids = (0..<50).map { _ in Item.newID() } + ["x", "A_b-9"]
        let original = ring(ids)
        let restored = try original.serialized().withUnsafeBytes { try KeyRing.parse($0) }
        XCTAssertEqual(Set(restored.itemIDs), Set(ids))
        XCTAssertEqual(restored.hashingKey.bytes, original.hashingKey.bytes)
        for id in ids { XCTAssertEqual(restored.key(for: id)?.bytes, original.key(for: id)?.bytes) }
        // Serialization is canonical: ids sorted, so the same ring gives the same bytes.
        XCTAssertEqual(restored.serialized().bytes, original.serialized().bytes)
    }

    func testEmptyRingRoundTrip() throws {
        let original = KeyRing()
        let bytes = original.serialized().bytes
        XCTAssertEqual(bytes.count, 4 + 32 + 4)
        let restored = try parse(bytes)
        XCTAssertEqual(restored.count, 0)
        XCTAssertEqual(restored.hashingKey.bytes, original.hashingKey.bytes)
    }

    func testEveryTruncationIsRejected() {
        let bytes = ring(["alpha", "beta", "gamma"]).serialized().bytes
        for length in 0..<bytes.count {
            XCTAssertTrue(isTampered(thrownError { try parse(Array(bytes.prefix(length))) }), "length \(length)")
        }
        XCTAssertTrue(isTampered(thrownError { try parse(bytes + [0]) }))
    }

    func testStructuralDamageIsRejected() {
        let bytes = ring(["alpha", "beta"]).serialized().bytes
        let countOffset = 4 + 32
        let firstIDLength = countOffset + 4
        func damaged(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var copy = bytes
            change(&copy)
            return copy
        }
        let cases: [(String, [UInt8])] = [
            ("magic", damaged { $0[0] ^= 0x20 }),
            ("count too large", damaged { $0[countOffset..<(countOffset + 4)] = [0xff, 0xff, 0xff, 0xff] }),
            ("count one more", damaged { $0[countOffset + 3] += 1 }),
            ("count one less", damaged { $0[countOffset + 3] -= 1 }),
            ("id length past the end", damaged { $0[firstIDLength] = 0xff }),
            ("id length zero", damaged { $0[firstIDLength + 1] = 0 }),
            ("invalid UTF-8 id", damaged { $0[firstIDLength + 2] = 0xff }),
            ("invalid id character", damaged { $0[firstIDLength + 2] = UInt8(ascii: "/") }),
        ]
        for (name, input) in cases {
            XCTAssertTrue(isTampered(thrownError { try parse(input) }), name)
        }
        // "alpha" rewritten as a second "beta".
        let duplicate = damaged {
            $0[firstIDLength + 1] = 4
            $0.replaceSubrange((firstIDLength + 2)..<(firstIDLength + 7), with: Array("beta".utf8))
        }
        XCTAssertTrue(isTampered(thrownError { try parse(duplicate) }), "duplicate")
    }

    func testRandomGarbageNeverCrashes() {
        var random = SeededGenerator(seed: 42)
        let valid = ring(["alpha", "beta", "gamma"]).serialized().bytes
        var accepted = 0
        for round in 0..<3000 {
            let input: [UInt8]
            if round.isMultiple(of: 2) {
                input = (0..<Int.random(in: 0...120, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            } else {
                var copy = valid
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    copy[Int.random(in: 0..<copy.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                input = copy
            }
            do {
                let parsed = try parse(input)
                accepted += 1
                XCTAssertEqual(parsed.count, 3)
                XCTAssertEqual(parsed.serialized().count, input.count)
            } catch {
                XCTAssertTrue(isTampered(error), "\(error)")
            }
        }
        // Changes that land only in key bytes still parse; most others must not.
        XCTAssertGreaterThan(accepted, 0)
        XCTAssertLessThan(accepted, 1500)
    }

    func testUnionAddsOnlyMissingKeysAndKeepsOwnKeys() throws {
        let mine = ring(["a", "b"])
        let theirs = ring(["b", "c"])
        let myB = mine.key(for: "b")?.bytes
        XCTAssertNotEqual(myB, theirs.key(for: "b")?.bytes)

        XCTAssertTrue(mine.formUnion(with: theirs))
        XCTAssertEqual(Set(mine.itemIDs), ["a", "b", "c"])
        XCTAssertEqual(mine.key(for: "b")?.bytes, myB)
        XCTAssertEqual(mine.key(for: "c")?.bytes, theirs.key(for: "c")?.bytes)
        XCTAssertFalse(mine.hashingKey.isEqual(to: theirs.hashingKey))
        XCTAssertFalse(mine.formUnion(with: theirs), "a second union changes nothing")
        XCTAssertEqual(Set(theirs.itemIDs), ["b", "c"], "the other ring is not changed")
    }

    func testUnionGrowsPastInitialCapacity() {
        let mine = ring(["a"])
        let theirs = ring((0..<100).map { "t\($0)" })
        XCTAssertTrue(mine.formUnion(with: theirs))
        XCTAssertEqual(mine.count, 101)
        for id in theirs.itemIDs { XCTAssertEqual(mine.key(for: id)?.bytes, theirs.key(for: id)?.bytes) }
    }

    func testWipeZeroesEveryKey() {
        let ring = ring(["a", "b"])
        ring.wipe()
        XCTAssertTrue(ring.hashingKey.isZero)
        XCTAssertEqual(ring.key(for: "a")?.isZero, true)
        XCTAssertEqual(ring.key(for: "b")?.isZero, true)
    }
}
