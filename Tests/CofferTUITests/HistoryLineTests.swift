import CofferCore
import XCTest
@testable import CofferTUI

/// The item page's history line names a tag change (issue 43 finding 10).
final class HistoryLineTests: XCTestCase {
    func testATagChangeIsNamedWithTheTagsBefore() {
        let created = Fixtures.timestamp("2026-11-20T17:30:00.000Z")
        XCTAssertEqual(DetailLayout.describe(HistoryEntry(created: created, patch: .object([:]), tags: ["money"]), revealed: false),
                       "tags (were “money”)")
        XCTAssertEqual(DetailLayout.describe(HistoryEntry(created: created, patch: .object(["username": .string("ann")]), tags: []),
                                             revealed: false), "username (was “ann”), tags (were none)")
        XCTAssertEqual(DetailLayout.describe(HistoryEntry(created: created, patch: .object([:])), revealed: false), "no change recorded")
    }
}
