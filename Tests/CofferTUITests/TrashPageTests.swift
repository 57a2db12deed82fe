import CofferCore
import Foundation
import XCTest
@testable import CofferTUI

/// The Trash view (issue 43): `Z` opens it from the list, `r` restores the item at ▸, `E` empties
/// it after a yes; the list and its count never show what it holds.
final class TrashPageTests: XCTestCase {
    /// The fixture's items with Bank and Mail in the trash, Mail the later.
    private func withTrash() -> ScreenState {
        var items = Fixtures.items
        for (id, time) in [("b2", "2026-11-20T09:00:00.000Z"), ("c3", "2026-11-21T10:30:00.000Z")] {
            guard let index = items.firstIndex(where: { $0.id == id }), var item = items[index].item else { continue }
            item.trashed = Timestamp(iso8601: time)
            items[index].content = .ready(item)
        }
        return Fixtures.unlocked(items: items)
    }

    func testTheListLeavesTheTrashOutAndTheViewListsItNewestFirst() {
        let state = withTrash()
        XCTAssertFalse(state.visibleItems.contains { $0.id == "b2" || $0.id == "c3" })
        XCTAssertEqual(state.listedCount, Fixtures.items.count - 2)
        XCTAssertEqual(state.trashedItems.map(\.id), ["c3", "b2"])
    }

    func testZOpensItRestoresTheItemAtTheCursorAndEmptiesAfterAYes() {
        let driver = Driver(withTrash())
        driver.press(.character("Z")) { $0.page = .trash(TrashPage()) }
        driver.press(.character("j")) { $0.page = .trash(TrashPage(cursor: 1)) }
        driver.press(.character("r"), effects: [.restoreItem(id: "b2", title: "Bank")])
        driver.send(.itemRestored(id: "b2", title: "Bank"), effects: [.reload]) { state in
            if let index = state.items.firstIndex(where: { $0.id == "b2" }), var bank = state.items[index].item {
                bank.trashed = nil
                state.items[index].content = .ready(bank)
                state.items[index].hasLocalChange = true
            }
            state.localWrites = 1
            state.page = .trash(TrashPage(cursor: 0))
            state.notice = Notice("Restored “Bank”.", until: driver.clock.now.addingTimeInterval(5))
            _ = state.scheduler.handle(.localChange, now: driver.clock.now)
        }
        XCTAssertTrue(driver.state.visibleItems.contains { $0.id == "b2" }, "back on the list")

        driver.press(.character("E")) { state in
            state.overlay = .confirm(Confirmation(question: "Remove 1 item in the trash for good, on every device?",
                                                  action: .emptyTrash, askedOn: .trash))
        }
        driver.press(.character("n")) { $0.overlay = nil }
        _ = Update.apply(.key(.character("E")), to: &driver.state, now: driver.clock.now)
        driver.press(.character("y"), effects: [.emptyTrash]) { $0.overlay = nil }
        driver.send(.trashEmptied(count: 1), effects: [.reload]) { state in
            state.items.removeAll { $0.id == "c3" }
            state.localWrites = 2
            state.notice = Notice("Removed 1 item for good.", until: driver.clock.now.addingTimeInterval(5))
            _ = state.scheduler.handle(.localChange, now: driver.clock.now)
        }
        XCTAssertEqual(KeyBindings.binding(for: .character("r"), in: .trash)?.disabledReason(driver.state), "The trash is empty.")
        driver.press(.escape) { $0.page = .list }
    }

    /// Another device put the item whose page is open in the trash: the reload closes the page and says so.
    func testAnItemTrashedElsewhereClosesItsPage() {
        var state = Fixtures.unlocked()
        state.page = .detail(DetailState(itemID: "b2"))
        let reloaded = withTrash().items
        _ = Update.apply(.reloaded(items: reloaded, summary: Fixtures.summary), to: &state, now: FakeClock.start)
        XCTAssertEqual(state.page, .list)
        XCTAssertEqual(state.notice?.text, "The item was moved to the trash (Z) on another device.")
    }

    func testTheTrashView() {
        var state = withTrash()
        state.page = .trash(TrashPage(cursor: 1))
        assertSnapshot(Render.frame(state, size: .standard, now: FakeClock.start), named: "trash")
    }
}
