@testable import CofferCore
import Foundation
import XCTest

/// The hand-written item record codec against Foundation's coders as the oracle.
final class ItemRecordJSONTests: XCTestCase {
    private func foundationText(_ record: ItemRecord) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(record), as: UTF8.self)
    }

    private func randomRecord(_ rng: inout SystemRandomNumberGenerator) -> ItemRecord {
        let alphabet = Array("abcdef0123456789+/=\"\\\u{1}\n é☕")
        func text(_ length: Int) -> String { String((0..<length).map { _ in alphabet.randomElement(using: &rng)! }) }
        if Bool.random(using: &rng) && Bool.random(using: &rng) {
            var removal = ItemRecord.tombstone(id: text(8), lastModified: Int64.random(in: 0...2_000_000_000_000, using: &rng))
            if Bool.random(using: &rng) {
                // A sealed removal (issue 41), signed or not.
                removal.encrypted = text(Int.random(in: 1...120, using: &rng))
                removal.signature = Bool.random(using: &rng) ? text(20) : nil
            }
            return removal
        }
        return ItemRecord(id: text(Int.random(in: 1...36, using: &rng)), isActive: Bool.random(using: &rng),
                          originHashes: (0..<Int.random(in: 0...3, using: &rng)).map { _ in text(64) },
                          tagHashes: (0..<Int.random(in: 0...3, using: &rng)).map { _ in text(64) },
                          encrypted: text(Int.random(in: 0...300, using: &rng)),
                          lastModified: Int64.random(in: 0...2_000_000_000_000, using: &rng))
    }

    func testSameBytesAsFoundationAndReadsBothBack() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let record = randomRecord(&rng)
            let text = ItemRecordJSON.encode(record)
            XCTAssertEqual(text, try foundationText(record))
            XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: text), record)
            XCTAssertEqual(try JSONDecoder().decode(ItemRecord.self, from: Data(text.utf8)), record)
        }
    }

    func testWhatTheServerMaySendDecodesAsFoundationDecodesIt() throws {
        let texts = [
            #"{"id": "a", "last_modified": 5, "active": "active", "origins": [], "tags": ["t"], "encrypted": "x", "schema": 3}"#,
            #"{"id":"a","deleted":true,"last_modified":7}"#,
            #"{"id":"a","deleted":null,"last_modified":null,"active":"","origins":[],"tags":[],"encrypted":""}"#,
            #"{"encrypted":"\u0041\/","tags":[],"origins":["\ud83d\ude00"],"active":"x","id":"a"}"#,
        ]
        for text in texts {
            XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: text),
                           try JSONDecoder().decode(ItemRecord.self, from: Data(text.utf8)), text)
        }
    }

    func testMalformedRecordsAreRefused() {
        let texts = [
            "", "[]", "{}", #"{"id": "a"}"#, #"{"id": 1, "deleted": true}"#,
            #"{"id":"a","active":"active","origins":[],"tags":[],"encrypted":"x","last_modified":1.5}"#,
            #"{"id":"a","active":"active","origins":[1],"tags":[],"encrypted":"x"}"#,
            #"{"id":"a","id":"b","deleted":true}"#,
            #"{"id":"a","deleted":true} x"#,
            #"{"id":"\ud800","deleted":true}"#,
        ]
        for text in texts {
            XCTAssertThrowsError(try RecordCoding.decode(ItemRecord.self, from: text), text)
        }
    }
}
