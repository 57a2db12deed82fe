import XCTest
@testable import CofferCore

/// The offset interval of the Airmail journal: [Date − t₁, Date + 1 s − t₀], intersected over answers.
final class ClockSkewTests: XCTestCase {
    private func ms(_ value: Int64) -> Timestamp { Timestamp(milliseconds: value) }

    func testOneAnswerGivesTheIntervalOfItsRoundTrip() {
        // Sent at 10.000 s, answered at 10.200 s, the server said 70 s (whole seconds): 60 s behind.
        let skew = ClockSkew(serverDate: ms(70_000), sent: ms(10_000), received: ms(10_200))
        XCTAssertEqual(skew.low, 59_800)
        XCTAssertEqual(skew.high, 61_000)
        XCTAssertEqual(skew.offsetMilliseconds, 59_800, "the end nearest zero")
        XCTAssertEqual(skew.uncertaintyMilliseconds, 1_200)
        let ahead = ClockSkew(serverDate: ms(10_000), sent: ms(70_000), received: ms(70_200))  // [-60.2, -59.0] s
        XCTAssertEqual(ahead.offsetMilliseconds, -59_000)
    }

    /// Two devices on the server's own clock, answered within one second of `Date`: the middles of
    /// their intervals were 500 ms and -100 ms (an edit 0.6 s later could sort first); both say 0.
    func testAClockTheAnswersCannotProveWrongIsNotCorrected() {
        let early = ClockSkew(serverDate: ms(100_000), sent: ms(100_000), received: ms(100_000))   // [0, 1.0] s
        let late = ClockSkew(serverDate: ms(100_000), sent: ms(100_600), received: ms(100_800))    // [-0.8, 0.4] s
        XCTAssertEqual(early.offsetMilliseconds, 0)
        XCTAssertEqual(late.offsetMilliseconds, 0)
        XCTAssertEqual(late.corrected(ms(100_800)), ms(100_800))
        XCTAssertEqual(early.uncertaintyMilliseconds, 1_000)
    }

    func testAnswersNarrowTheIntervalAndADisjointOneStartsAgain() {
        let first = ClockSkew(serverDate: ms(70_000), sent: ms(10_000), received: ms(10_200))   // [59.8, 61.0] s
        let second = ClockSkew(serverDate: ms(71_000), sent: ms(10_700), received: ms(10_750))  // [60.25, 61.3] s
        let narrowed = first.narrowed(by: second)
        XCTAssertEqual(narrowed.low, 60_250)
        XCTAssertEqual(narrowed.high, 61_000)
        let stepped = ClockSkew(serverDate: ms(71_000), sent: ms(70_000), received: ms(70_010))  // the clock jumped
        XCTAssertEqual(narrowed.narrowed(by: stepped), stepped)
    }

    func testCorrectionAndWarning() {
        let behind = ClockSkew(low: 419_000, high: 421_000, measured: ms(0))
        XCTAssertEqual(behind.corrected(ms(1_000)), ms(420_000))
        XCTAssertEqual(behind.warning, "clock 7 min behind the server (corrected)")
        let ahead = ClockSkew(low: -10_801_000, high: -10_799_000, measured: ms(0))
        XCTAssertEqual(ahead.warning, "clock 3 h ahead of the server (corrected)")
        XCTAssertNil(ClockSkew(low: -299_000, high: -298_000, measured: ms(0)).warning, "within five minutes")
    }

    func testItIsStoredAndReadBackAndNonsenseIsRefused() {
        let skew = ClockSkew(low: -5, high: 995, measured: ms(1_764_000_000_123))
        XCTAssertEqual(ClockSkew(stored: skew.stored), skew)
        for text in ["", "1 2", "2 1 2026-11-24T00:00:00.000Z", "a b c", "1 2 yesterday"] {
            XCTAssertNil(ClockSkew(stored: text), text)
        }
    }
}
