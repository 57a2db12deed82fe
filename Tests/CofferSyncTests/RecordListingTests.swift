@testable import CofferSync
import Foundation
import XCTest

/// A listing page is read once: each record keeps its own bytes of the page, and anything that is
/// not a strict listing is refused whole.
final class RecordListingTests: XCTestCase {
    private func records(_ text: String) throws -> [String] {
        try KintoClient.listedRecords(Data(text.utf8)).map { String(decoding: $0.data, as: UTF8.self) }
    }

    private func assertRefused(_ text: String, _ why: String, line: UInt = #line) {
        XCTAssertThrowsError(try KintoClient.listedRecords(Data(text.utf8)), why, line: line) { error in
            guard case KintoError.network = error else { return XCTFail("\(error) is not a network error", line: line) }
        }
    }

    func testEachRecordIsItsOwnBytes() throws {
        XCTAssertEqual(try records(#"{"data": [{"id": "a", "last_modified": 1}, {"id":"b","last_modified":2,"n":[1,{"x":2}]} ]}"#),
                       [#"{"id": "a", "last_modified": 1}"#, #"{"id":"b","last_modified":2,"n":[1,{"x":2}]}"#])
        XCTAssertEqual(try records(#"{"data":[]}"#), [])
    }

    func testStringsWithBracesQuotesAndEscapesDoNotConfuseIt() throws {
        let text = #"{"note": "data: [{", "data": [{"id": "a", "last_modified": 1, "s": "}]\"{[", "t": "\\"}, {"id": "b", "last_modified": 2, "u": "\u007d"}], "after": {"data": [{"no": 1}]}}"#
        XCTAssertEqual(try records(text), [#"{"id": "a", "last_modified": 1, "s": "}]\"{[", "t": "\\"}"#,
                                           #"{"id": "b", "last_modified": 2, "u": "\u007d"}"#])
    }

    func testOnlyTheTopLevelKeyCounts() throws {
        assertRefused(#"{"other": {"data": [{"id": "a", "last_modified": 1}]}}"#, "no top-level data")
        XCTAssertEqual(try records(#"{"x": ["data"], "data": [{"id": "a", "last_modified": 1}]}"#),
                       [#"{"id": "a", "last_modified": 1}"#])
    }

    func testIdsAndTimestampsComeFromThePage() throws {
        let listed = try KintoClient.listedRecords(Data(#"{"data": [{"last_modified": 17, "encrypted": "x/y", "id": "a"}]}"#.utf8))
        XCTAssertEqual(listed.map(\.id), ["a"])
        XCTAssertEqual(listed.map(\.lastModified), [17])
    }

    func testAnythingButAStrictListingIsRefused() {
        assertRefused(#"{"data": [{"id": "a", "last_modified": 1}], "data": []}"#, "the key twice")
        assertRefused(#"{"data": [{"id": "a"}]}"#, "no last_modified")
        assertRefused(#"{"data": [{"last_modified": 1}]}"#, "no id")
        assertRefused(#"{"data": [{"id": 7, "last_modified": 1}]}"#, "an id that is no string")
        assertRefused(#"{"data": [{"id": "a", "last_modified": 1.5}]}"#, "a fractional timestamp")
        assertRefused(#"{"data": [{"id": "a", "id": "b", "last_modified": 1}]}"#, "an id twice")
        assertRefused(#"{"data": [{"id": "a", "last_modified": 1}]"#, "truncated")
        assertRefused(#"{"data": [{"id": "a", "last_modified": 1}]} x"#, "data after the page")
        assertRefused(#"{"data": ["a"]}"#, "a record that is no object")
        assertRefused(#"{"data": [{"id": "a\ud800", "last_modified": 1}]}"#, "a lone surrogate")
        assertRefused("{\"data\": [{\"id\": \"a\u{0}\", \"last_modified\": 1}]}", "a raw control character")
    }
}
