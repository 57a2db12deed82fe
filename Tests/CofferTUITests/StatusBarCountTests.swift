import XCTest
@testable import CofferTUI

/// The status bar's counts say only what is there: no warning sign beside zero conflicts.
final class StatusBarCountTests: XCTestCase {
    private func bar(conflicts: Int) -> String {
        var summary = Fixtures.summary
        summary.conflicts = conflicts
        let state = Fixtures.unlocked(summary: summary)
        return StatusBar.fit(StatusBar.segments(state, now: FakeClock.start), width: 200)
    }

    func testZeroConflictsShowNoWarning() {
        XCTAssertFalse(bar(conflicts: 0).contains("⚠"), bar(conflicts: 0))
        XCTAssertFalse(bar(conflicts: 0).contains("conflict"), bar(conflicts: 0))
    }

    func testConflictsAboveZeroAreShownWithTheWarning() {
        XCTAssertTrue(bar(conflicts: 2).contains("⚠ 2 conflicts"), bar(conflicts: 2))
    }
}
