import CofferCore
@testable import CofferSync
import XCTest

final class HTTPDateTests: XCTestCase {
    func testTheFixedFormIsRead() {
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), Timestamp(iso8601: "1994-11-06T08:49:37Z"))
        XCTAssertEqual(HTTPDate.parse("Tue, 24 Nov 2026 13:59:36 GMT"), Timestamp(iso8601: "2026-11-24T13:59:36Z"))
        XCTAssertEqual(HTTPDate.parse(" Thu, 29 Feb 2024 00:00:00 GMT "), Timestamp(iso8601: "2024-02-29T00:00:00Z"))
    }

    func testAnythingElseIsRefused() {
        for text in ["", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
                     "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 31 Feb 2025 08:49:37 GMT",
                     "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
                     "Sun, 06 Nov 1994 08:49:3x GMT", "Sun, 06 Nov 1994 08:49:37 GMT extra"] {
            XCTAssertNil(HTTPDate.parse(text), text)
        }
    }
}
