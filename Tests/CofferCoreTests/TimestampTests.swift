import Foundation
import XCTest
@testable import CofferCore
import CofferTestSupport

final class TimestampTests: XCTestCase {
    func testFormatsKnownInstants() {
        XCTAssertEqual(Timestamp(milliseconds: 0).iso8601, "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp(milliseconds: 1_700_000_000_123).iso8601, "2023-11-14T22:13:20.123Z")
        XCTAssertEqual(Timestamp(milliseconds: 951_782_400_007).iso8601, "2000-02-29T00:00:00.007Z")
        XCTAssertEqual(Timestamp(milliseconds: 253_402_300_799_999).iso8601, "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp(milliseconds: 5).description, "1970-01-01T00:00:00.005Z")
    }

    func testParsesKnownInstants() {
        XCTAssertEqual(Timestamp(iso8601: "2023-11-14T22:13:20.123Z")?.milliseconds, 1_700_000_000_123)
        XCTAssertEqual(Timestamp(iso8601: "2000-02-29T00:00:00Z")?.milliseconds, 951_782_400_000)
        XCTAssertEqual(Timestamp(iso8601: "1970-01-01T00:00:00.000Z")?.milliseconds, 0)
    }

    func testNegativeEpochFormatsAndParses() {
        let cases: [(Int64, String)] = [
            (-1, "1969-12-31T23:59:59.999Z"),
            (-1000, "1969-12-31T23:59:59.000Z"),
            (-1500, "1969-12-31T23:59:58.500Z"),
            (-86_400_000, "1969-12-31T00:00:00.000Z"),
            (-14_182_940_000, "1969-07-20T20:17:40.000Z"),
        ]
        for (milliseconds, text) in cases {
            XCTAssertEqual(Timestamp(milliseconds: milliseconds).iso8601, text)
            XCTAssertEqual(Timestamp(iso8601: text)?.milliseconds, milliseconds, text)
        }
    }

    func testRoundTripsAcrossCenturies() {
        var random = SeededGenerator(seed: 8601)
        // 1900-01-01 to 9999-12-31.
        let range: ClosedRange<Int64> = -2_208_988_800_000...253_402_300_799_999
        for _ in 0..<5000 {
            let timestamp = Timestamp(milliseconds: Int64.random(in: range, using: &random))
            XCTAssertEqual(Timestamp(iso8601: timestamp.iso8601), timestamp, timestamp.iso8601)
        }
    }

    func testFractionalDigits() {
        let base = "2026-03-04T05:06:07"
        let expected: [(String, Int64)] = [
            ("Z", 0), (".1Z", 100), (".12Z", 120), (".123Z", 123), (".1234Z", 123), (".123456Z", 123),
            (".999999999Z", 999), (".000Z", 0), (".05Z", 50),
        ]
        let whole = Timestamp(iso8601: base + "Z")!.milliseconds
        for (suffix, millis) in expected {
            XCTAssertEqual(Timestamp(iso8601: base + suffix)?.milliseconds, whole + millis, suffix)
        }
    }

    func testRejectsMalformedStrings() {
        let malformed = [
            "", "Z", "2026-03-04", "2026-03-04T05:06:07", "2026-03-04T05:06:07z", "2026-03-04 05:06:07Z",
            "2026/03/04T05:06:07Z", "2026-03-04T05-06-07Z", "2026-3-04T05:06:07Z", "26-03-04T05:06:07Z",
            "2026-03-04T05:06:07+01:00", "2026-03-04T05:06:07.123+00:00", "2026-03-04T05:06:07.Z",
            "2026-03-04T05:06:07,123Z", "2026-03-04T05:06:07.12aZ", "2026-03-04T05:06:07.1234567890Z",
            "2026-03-04T05:06:07Zjunk", " 2026-03-04T05:06:07Z", "2026-03-04T05:06:07Z ",
            "2026-00-04T05:06:07Z", "2026-13-04T05:06:07Z", "2026-03-00T05:06:07Z", "2026-03-32T05:06:07Z",
            "2026-02-30T05:06:07Z", "2025-02-29T05:06:07Z", "2026-04-31T05:06:07Z", "1900-02-29T00:00:00Z",
            "2026-03-04T24:00:00Z", "2026-03-04T05:60:07Z", "2026-03-04T05:06:61Z",
            "２０２６-03-04T05:06:07Z", "-026-03-04T05:06:07Z", "+2026-03-04T05:06:07Z",
        ]
        for text in malformed {
            XCTAssertNil(Timestamp(iso8601: text), "accepted \(text.debugDescription)")
        }
    }

    func testLeapDaysAreAccepted() {
        XCTAssertNotNil(Timestamp(iso8601: "2024-02-29T12:00:00Z"))
        XCTAssertNotNil(Timestamp(iso8601: "2000-02-29T12:00:00Z"))
        XCTAssertNotNil(Timestamp(iso8601: "2026-12-31T23:59:59.999Z"))
    }

    func testCodableUsesTheISOForm() throws {
        let timestamp = Timestamp(milliseconds: 1_700_000_000_123)
        let encoded = try JSONEncoder().encode([timestamp])
        XCTAssertEqual(String(decoding: encoded, as: UTF8.self), #"["2023-11-14T22:13:20.123Z"]"#)
        XCTAssertEqual(try JSONDecoder().decode([Timestamp].self, from: encoded), [timestamp])
        XCTAssertThrowsError(try JSONDecoder().decode([Timestamp].self, from: Data(#"["yesterday"]"#.utf8)))
        XCTAssertThrowsError(try JSONDecoder().decode([Timestamp].self, from: Data("[1700000000]".utf8)))
    }

    func testDateConversionRoundsDownToTheMillisecond() {
        XCTAssertEqual(Timestamp(Date(timeIntervalSince1970: 1.2349)).milliseconds, 1234)
        XCTAssertEqual(Timestamp(Date(timeIntervalSince1970: -0.0005)).milliseconds, -1)
        XCTAssertEqual(Timestamp(milliseconds: 1500).date, Date(timeIntervalSince1970: 1.5))
    }

    func testOrdering() {
        XCTAssertLessThan(Timestamp(milliseconds: -1), Timestamp(milliseconds: 0))
        XCTAssertLessThan(Timestamp(iso8601: "2026-01-01T00:00:00.001Z")!, Timestamp(iso8601: "2026-01-01T00:00:00.002Z")!)
    }
}
