@testable import CofferSync
import Foundation
import XCTest

final class JSONArraySlicesTests: XCTestCase {
    private func slices(_ text: String, key: String = "data") -> [String]? {
        let bytes = Data(text.utf8)
        return JSONArraySlices.objects(under: key, in: bytes)?.map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    func testEachObjectIsItsOwnBytes() {
        XCTAssertEqual(slices(#"{"data": [{"id": "a"}, {"id":"b","n":[1,{"x":2}]} ]}"#),
                       [#"{"id": "a"}"#, #"{"id":"b","n":[1,{"x":2}]}"#])
        XCTAssertEqual(slices(#"{"data":[]}"#), [])
    }

    func testStringsWithBracesQuotesAndEscapesDoNotConfuseIt() {
        let text = #"{"note": "data: [{", "data": [{"s": "}]\"{[", "t": "\\"}, {"u": "\u007d"}], "after": {"data": [{"no": 1}]}}"#
        XCTAssertEqual(slices(text), [#"{"s": "}]\"{[", "t": "\\"}"#, #"{"u": "\u007d"}"#])
    }

    func testOnlyTheTopLevelKeyCounts() {
        XCTAssertNil(slices(#"{"other": {"data": [{"id": "a"}]}}"#))
        XCTAssertEqual(slices(#"{"x": ["data"], "data": [{"id": "a"}]}"#), [#"{"id": "a"}"#])
    }

    func testTheKeyTwiceIsRefused() {
        XCTAssertNil(slices(#"{"data": [{"id": "a"}], "data": [{"id": "b"}]}"#))
    }

    /// The listing takes each record from the page as is; a page whose slices and parsed records
    /// disagree is refused.
    func testTheListingUsesThePageBytes() throws {
        let page = Data(#"{"data": [{"id": "a", "last_modified": 2, "encrypted": "x/y"}]}"#.utf8)
        let records = try KintoClient.listedRecords(page)
        XCTAssertEqual(records.map(\.id), ["a"])
        XCTAssertEqual(String(decoding: records[0].data, as: UTF8.self), #"{"id": "a", "last_modified": 2, "encrypted": "x/y"}"#)
    }
}
