import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

final class LineageTests: XCTestCase {
    private let key = SecureBuffer.random(count: 32)
    private let plaintext = Data("an item".utf8)

    func testTheLineageIsReadableWithoutTheKeyAndTheEnvelopeOpens() throws {
        let lineage = Lineage(revision: 0x0102_0304_0506_0708, parent: Data((0..<16).map { UInt8($0) }))
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc", lineage: lineage)
        XCTAssertEqual(sealed.first, Envelope.lineageVersion)
        XCTAssertEqual(Envelope.lineage(of: sealed), lineage)
        XCTAssertEqual(Lineage.of(sealed.base64EncodedString()), lineage)
        XCTAssertEqual(try Envelope.open(sealed, key: key, collection: "items", id: "abc"), plaintext)
    }

    func testAVersionOneEnvelopeHasTheUnknownLineageAndGarbageNone() throws {
        let old = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc")
        XCTAssertEqual(Envelope.lineage(of: old), .unknown)
        XCTAssertNil(Lineage.of(Data([0, 1, 2, 3]).base64EncodedString()))
        XCTAssertNil(Lineage.of(""))
        XCTAssertNil(Envelope.lineage(of: Data([Envelope.lineageVersion, 1, 2])))
    }

    /// The lineage is part of the associated data: changing a single bit of it (to make an old
    /// version look new) makes the envelope fail to open.
    func testEveryBitOfTheLineageIsAuthenticated() throws {
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc", lineage: .first)
        for position in 1...24 {
            for bit in 0..<8 {
                var damaged = sealed
                damaged[position] ^= UInt8(1 << bit)
                XCTAssertTrue(isTampered(thrownError { try Envelope.open(damaged, key: key, collection: "items", id: "abc") }),
                              "byte \(position) bit \(bit)")
            }
        }
    }

    func testAVersionMadeFromAnotherNamesItAndComesAfterIt() throws {
        let first = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc", lineage: .first).base64EncodedString()
        let next = Lineage.following(first)
        XCTAssertGreaterThan(next.revision, try XCTUnwrap(Lineage.of(first)).revision)
        let second = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc", lineage: next).base64EncodedString()
        XCTAssertTrue(try XCTUnwrap(Lineage.of(second)).isMade(from: first))
        XCTAssertFalse(try XCTUnwrap(Lineage.of(first)).isMade(from: second))
        XCTAssertTrue(Lineage.isOlder(first, than: second))
        XCTAssertFalse(Lineage.isOlder(second, than: first))
        XCTAssertFalse(Lineage.isOlder("not an envelope", than: second), "corrupt is not older")
    }

    /// Revisions grow along a history even when the clock goes backwards (another device's
    /// clock may be behind): one more than the base, whatever the time says.
    func testTheRevisionGrowsWhenTheClockIsBehind() throws {
        let future = Lineage(revision: UInt64(Timestamp.now().milliseconds) + 86_400_000, parent: Data(count: 16))
        let base = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc", lineage: future).base64EncodedString()
        XCTAssertEqual(Lineage.following(base).revision, future.revision + 1)
        XCTAssertGreaterThanOrEqual(Lineage.following(nil, now: Timestamp(milliseconds: 5_000)).revision, 5_000)
    }

    /// A version made from an older one the server served back (a rollback) still outranks the
    /// newer version this device held, whatever the clocks say, and names the served one as parent.
    func testAVersionMadeFromAnOlderOneOutranksTheNewerItReplaces() throws {
        let older = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc",
                                      lineage: Lineage(revision: 1_000, parent: Data(count: 16))).base64EncodedString()
        let newer = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc",
                                      lineage: Lineage(revision: 9_000, parent: Data(count: 16))).base64EncodedString()
        let clockBehind = Timestamp(milliseconds: 5_000)
        XCTAssertEqual(Lineage.following(older, now: clockBehind).revision, 5_000, "by the clock alone: older than 9,000")
        let replacement = Lineage.following(older, outranking: newer, now: clockBehind)
        XCTAssertEqual(replacement.revision, 9_001)
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc", lineage: replacement).base64EncodedString()
        XCTAssertTrue(replacement.isMade(from: older))
        XCTAssertTrue(Lineage.isOlder(newer, than: sealed))
    }
}
