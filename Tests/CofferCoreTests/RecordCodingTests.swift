import Foundation
import XCTest
@testable import CofferCore

/// The JSON shape of records (what the server stores) and the search-hash normalisation.
final class RecordCodingTests: XCTestCase {
    func testItemRecordShape() throws {
        let record = ItemRecord(id: "a", isActive: true, originHashes: ["h1"], tagHashes: [], encrypted: "E", lastModified: 5)
        XCTAssertEqual(try RecordCoding.encode(record),
                       #"{"active":"active","encrypted":"E","id":"a","last_modified":5,"origins":["h1"],"tags":[]}"#)
        var inactive = record
        inactive.isActive = false
        XCTAssertTrue(try RecordCoding.encode(inactive).contains(#""active":"""#))
        XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: RecordCoding.encode(inactive)), inactive)
    }

    func testTombstoneShape() throws {
        let tombstone = ItemRecord.tombstone(id: "a", lastModified: 9)
        XCTAssertEqual(try RecordCoding.encode(tombstone), #"{"deleted":true,"id":"a","last_modified":9}"#)
        XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: #"{"id":"a","deleted":true,"last_modified":9}"#), tombstone)
    }

    func testServerRecordWithoutTimestampDecodesAsNeverSynced() throws {
        let record = try RecordCoding.decode(ItemRecord.self, from: #"{"id":"a","active":"","origins":[],"tags":[],"encrypted":"E"}"#)
        XCTAssertEqual(record.lastModified, 0)
        XCTAssertFalse(record.isActive)
    }

    func testIncompleteRecordIsRejected() {
        XCTAssertThrowsError(try RecordCoding.decode(ItemRecord.self, from: #"{"id":"a","active":"active"}"#))
    }

    func testOriginNormalisation() {
        XCTAssertEqual(SearchHash.normalizedOrigin("https://Example.COM/login?x=1"), "example.com")
        XCTAssertEqual(SearchHash.normalizedOrigin("  Example.com/path "), "example.com")
        XCTAssertEqual(SearchHash.normalizedOrigin("example.com"), "example.com")
        XCTAssertEqual(SearchHash.normalizedTag("  Work "), "work")
    }

    func testSearchHashIsKeyedHMAC() {
        let key = SecureBuffer(copying: Array(repeating: UInt8(1), count: 32))
        let hash = SearchHash.hash("example.com", key: key)
        XCTAssertEqual(hash.count, 64)
        XCTAssertEqual(hash, SearchHash.hash("example.com", key: SecureBuffer(copying: Array(repeating: UInt8(1), count: 32))))
        XCTAssertNotEqual(hash, SearchHash.hash("example.com", key: SecureBuffer(copying: Array(repeating: UInt8(2), count: 32))))
        XCTAssertNotEqual(hash, SearchHash.hash("example.org", key: key))
    }
}
