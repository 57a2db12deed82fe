import CofferCore
import Foundation
import XCTest
@testable import CofferTUI

/// After an unlock the first page shows the first items opened; the rest fill in behind, the title
/// saying so; a lock meanwhile stops them coming back.
final class OpeningItemsTests: XCTestCase {
    let now = FakeClock.start

    func testTheListFillsInBehindTheFirstPage() {
        var state = Fixtures.locked()
        let first = Array(Fixtures.items.prefix(2))
        _ = Update.apply(.unlocked(items: first, summary: Fixtures.summary), to: &state, now: now)
        _ = Update.apply(.itemsOpened(first, isComplete: false), to: &state, now: now)
        XCTAssertEqual(state.page, .list)
        XCTAssertTrue(Render.frame(state, size: .standard, now: now).text.contains("opening… 2 items so far"))
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        let selected = state.list.selectedID
        _ = Update.apply(.itemsOpened(Fixtures.items, isComplete: true), to: &state, now: now)
        XCTAssertEqual(state.items.count, Fixtures.items.count)
        XCTAssertEqual(state.list.selectedID, selected, "the selection stays on its item as the rest arrive")
        let title = Render.frame(state, size: .standard, now: now).text
        XCTAssertTrue(title.contains("7 items · by title") && !title.contains("opening"), title)
    }

    func testALockWhileOpeningKeepsTheItemsAway() {
        var state = Fixtures.locked()
        _ = Update.apply(.unlocked(items: Array(Fixtures.items.prefix(2)), summary: Fixtures.summary), to: &state, now: now)
        _ = Update.apply(.key(.character("L")), to: &state, now: now)
        _ = Update.apply(.itemsOpened(Fixtures.items, isComplete: true), to: &state, now: now)
        XCTAssertTrue(state.isLocked)
        XCTAssertTrue(state.items.isEmpty)
        XCTAssertFalse(state.isOpeningItems)
    }
}
