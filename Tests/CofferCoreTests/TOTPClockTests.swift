import XCTest
@testable import CofferCore

final class TOTPClockTests: XCTestCase {
    func testAWarningOnlyBeyondOnePeriodNamingTheDifference() {
        let rows: [(offset: Int64, warning: String?)] = [
            (0, nil), (30_000, nil), (-30_000, nil),
            (30_001, "30 s ahead of"), (-95_000, "95 s behind"), (600_000, "10 min ahead of"),
            (5 * 3_600_000 + 1_000, "5 h ahead of"), (30 * 86_400_000 - 400, "30 days ahead of"),
        ]
        for row in rows {
            let warning = TOTPClock.warning(offsetMilliseconds: row.offset)
            if let expected = row.warning {
                XCTAssertTrue(warning?.contains(expected) == true, "\(row.offset): \(warning ?? "none")")
            } else {
                XCTAssertNil(warning, "\(row.offset)")
            }
        }
    }
}
