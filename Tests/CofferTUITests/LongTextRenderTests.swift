import CofferCore
import XCTest
@testable import CofferTUI

/// Text longer than its place is shown whole where a person needs all of it: a notice wraps onto a
/// second line, and the review's two times are readable to the second.
final class LongTextRenderTests: XCTestCase {
    let now = FakeClock.start

    private func lines(_ state: ScreenState) -> [String] {
        let grid = Render.frame(state, size: .standard, now: now)
        return (0..<grid.size.height).map(grid.line)
    }

    /// A notice wider than the screen ends on the hint line and starts on the row above it: it was
    /// cut at the edge ("…the other value in history (⚑, v to revi").
    func testALongNoticeWrapsOntoASecondLine() {
        var state = Fixtures.unlocked()
        let text = "Merged with a change another device saved meanwhile; both changed password: yours kept, "
            + "the other value in history (⚑, v to review)."
        state.notice = Notice(text, until: now.addingTimeInterval(5))
        let rows = lines(state)
        let shown = rows[21].trimmingCharacters(in: .whitespaces) + " " + rows[22].trimmingCharacters(in: .whitespaces)
        XCTAssertEqual(shown, text, rows.joined(separator: "\n"))
        XCTAssertTrue(rows[23].contains("🔓"), "the status bar stays")
    }

    func testAShortNoticeStaysOnTheHintLine() {
        var state = Fixtures.unlocked()
        let withoutNotice = lines(state)
        state.notice = Notice("Copied.", until: now.addingTimeInterval(5))
        let rows = lines(state)
        XCTAssertEqual(rows[22], " Copied.")
        XCTAssertEqual(rows[21], withoutNotice[21], "the page's last row is left alone")
    }

    /// Both sides changed the field a minute apart: the review shows each time to the second,
    /// before the value; both read "2026-12-07 01:…".
    func testTheReviewsTimesAreReadableToTheSecond() {
        var conflict = FieldConflict(name: .username, local: "fromA", remote: "fromB", chosen: .remote)
        conflict.merged.localStamp = FieldStamp(at: Fixtures.timestamp("2026-12-07T01:23:45.000Z"), by: "dev-a")
        conflict.merged.remoteStamp = FieldStamp(at: Fixtures.timestamp("2026-12-07T01:23:58.000Z"), by: "dev-b")
        var state = Fixtures.unlocked()
        state.page = .review(ReviewState(reviews: [ConflictReview(itemID: "a1", title: "GitHub", fields: [conflict])]))
        let row = lines(state).first { $0.contains("username") } ?? ""
        XCTAssertTrue(row.contains("01:23:45 fromA"), row)
        XCTAssertTrue(row.contains("01:23:58 fromB"), row)
    }

    /// On different days the month and day come too.
    func testTheReviewNamesTheDayWhenTheSidesDiffer() {
        var conflict = FieldConflict(name: .username, local: "fromA", remote: "fromB", chosen: .remote)
        conflict.merged.localStamp = FieldStamp(at: Fixtures.timestamp("2026-12-06T23:59:59.000Z"), by: "dev-a")
        conflict.merged.remoteStamp = FieldStamp(at: Fixtures.timestamp("2026-12-07T00:00:01.000Z"), by: "dev-b")
        var state = Fixtures.unlocked()
        state.page = .review(ReviewState(reviews: [ConflictReview(itemID: "a1", title: "GitHub", fields: [conflict])]))
        let row = lines(state).first { $0.contains("username") } ?? ""
        XCTAssertTrue(row.contains("12-06 23:59:59"), row)
        XCTAssertTrue(row.contains("12-07 00:00:01"), row)
    }
}
