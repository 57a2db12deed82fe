import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

final class EnvelopeTests: XCTestCase {
    private let key = SecureBuffer.random(count: 32)
    private let plaintext = Data("the quick brown fox".utf8)

    func testRoundTrip() throws {
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc")
        XCTAssertEqual(sealed.count, plaintext.count + 1 + 12 + 16)
        XCTAssertEqual(sealed.first, Envelope.version)
        XCTAssertEqual(try Envelope.open(sealed, key: key, collection: "items", id: "abc"), plaintext)
    }

    func testEverySealUsesAFreshNonce() throws {
        let first = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc")
        let second = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc")
        XCTAssertNotEqual(first, second)
        XCTAssertNotEqual(first[1..<13], second[1..<13])
    }

    func testEmptyPlaintextRoundTrips() throws {
        let sealed = try Envelope.seal(Data(), key: key, collection: "keystores", id: "default")
        XCTAssertEqual(try Envelope.open(sealed, key: key, collection: "keystores", id: "default"), Data())
    }

    func testAnotherIDOrCollectionIsRejectedEvenWithTheSameKey() throws {
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc")
        XCTAssertTrue(isTampered(thrownError { try Envelope.open(sealed, key: key, collection: "items", id: "abd") }))
        XCTAssertTrue(isTampered(thrownError { try Envelope.open(sealed, key: key, collection: "keystores", id: "abc") }))
    }

    func testWrongKeyIsRejected() throws {
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc")
        let other = SecureBuffer.random(count: 32)
        XCTAssertTrue(isTampered(thrownError { try Envelope.open(sealed, key: other, collection: "items", id: "abc") }))
    }

    func testEveryTruncationAndAnExtensionAreRejected() throws {
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc")
        for length in 0..<sealed.count {
            XCTAssertTrue(isTampered(thrownError {
                try Envelope.open(sealed.prefix(length), key: key, collection: "items", id: "abc")
            }), "prefix \(length)")
        }
        XCTAssertTrue(isTampered(thrownError {
            try Envelope.open(sealed + Data([0]), key: key, collection: "items", id: "abc")
        }))
    }

    func testEverySingleByteFlipIsRejected() throws {
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc")
        for position in sealed.indices {
            for mask: UInt8 in [0x01, 0x80, 0xff] {
                var damaged = sealed
                damaged[position] ^= mask
                XCTAssertTrue(isTampered(thrownError {
                    try Envelope.open(damaged, key: key, collection: "items", id: "abc")
                }), "byte \(position) ^ \(mask)")
            }
        }
    }

    func testOpensASlicedEnvelope() throws {
        // Data slices keep their parent's indices; the envelope must not assume they start at 0.
        let sealed = try Envelope.seal(plaintext, key: key, collection: "items", id: "abc")
        let padded = Data([9, 9, 9]) + sealed
        XCTAssertEqual(try Envelope.open(padded.dropFirst(3), key: key, collection: "items", id: "abc"), plaintext)
    }
}
