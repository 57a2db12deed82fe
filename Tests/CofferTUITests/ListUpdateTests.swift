import CofferCore
import XCTest
@testable import CofferTUI

/// Browsing: moving, filtering, sorting, opening, copying, deleting.
final class ListUpdateTests: XCTestCase {
    func testTitlesSortFirstAndUnreadableItemsLast() {
        let titles = Fixtures.unlocked().visibleItems.map(\.displayTitle)
        XCTAssertEqual(titles, ["🔑 Home Wi-Fi", "Bank", "GitHub", "Mail", "Old forum", "日本の銀行",
                                "(waiting for its key)"])
    }

    func testVimKeysAndArrowsMoveTheSelection() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("j")) { $0.list.selectedID = "b2" }
        driver.press(.down) { $0.list.selectedID = "a1" }
        driver.press(.character("k")) { $0.list.selectedID = "b2" }
        driver.press(.character("G")) { $0.list.selectedID = "g7" }
        driver.press(.down)
        driver.press(.home) { $0.list.selectedID = "f6" }
        driver.press(.up)
    }

    func testTheListScrollsToKeepTheSelectionVisible() {
        var start = Fixtures.unlocked()
        start.size = Size(width: 80, height: 8)
        let driver = Driver(start)
        XCTAssertEqual(driver.state.listRows, 4)
        driver.press(.pageDown) { $0.list.selectedID = "d4"; $0.list.top = 1 }
        driver.press(.end) { $0.list.selectedID = "g7"; $0.list.top = 3 }
        driver.press(.character("g")) { $0.list.selectedID = "f6"; $0.list.top = 0 }
    }

    func testSlashFiltersAsYouTypeOverEveryTextField() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("/")) { $0.list.isFilterFocused = true }
        driver.press(.character("f")) { state in
            state.list.filter = TextField("f")
            // "f6" (Wi-Fi) still matches, so the selection stays.
        }
        driver.type("inance")
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["b2", "e5"], "tags match")
        XCTAssertEqual(driver.state.list.selectedID, "b2")

        let notes = Driver(Fixtures.unlocked())
        _ = Update.apply(.key(.character("/")), to: &notes.state, now: notes.clock.now)
        notes.type("SAFE recovery")
        XCTAssertEqual(notes.state.visibleItems.map(\.id), ["a1"], "notes match, ignoring case, every word")
        notes.state.list.filter = TextField("ginkou")
        XCTAssertEqual(notes.state.visibleItems.map(\.id), ["e5"], "origins match")
        notes.state.list.filter = TextField("alice.smith")
        XCTAssertEqual(notes.state.visibleItems.map(\.id), ["b2"], "usernames match")
    }

    /// The selection is found among the filtered rows by its place in the sorted list; it stays on
    /// a row that still matches, wherever that row is, and goes to the first row otherwise.
    func testTheSelectionStaysOnARowTheFilterStillShows() {
        let driver = Driver(Fixtures.unlocked())
        driver.state.list.selectedID = "e5"
        XCTAssertEqual(driver.state.selectedIndex, 5)
        _ = Update.apply(.key(.character("/")), to: &driver.state, now: driver.clock.now)
        driver.type("finance")
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["b2", "e5"])
        XCTAssertEqual(driver.state.selectedIndex, 1)
        XCTAssertEqual(driver.state.currentItem?.id, "e5")
        driver.type("x")
        XCTAssertEqual(driver.state.selectedIndex, nil, "no row left")
        _ = Update.apply(.key(.backspace), to: &driver.state, now: driver.clock.now)
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["b2", "e5"])
        driver.state.list.selectedID = "c3"
        XCTAssertEqual(driver.state.selectedIndex, 0, "a row the filter hides: the first row")
    }

    func testEnterKeepsTheFilterAndEscClearsIt() {
        let driver = Driver(Fixtures.unlocked())
        _ = Update.apply(.key(.character("/")), to: &driver.state, now: driver.clock.now)
        driver.type("finance")
        driver.press(.enter) { $0.list.isFilterFocused = false }
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["b2", "e5"])
        XCTAssertEqual(driver.state.page, .list, "two matches: Enter only ends typing")
        driver.press(.escape) { $0.list.filter = TextField() }
        XCTAssertEqual(driver.state.visibleItems.count, 7)
    }

    /// Enter on a filter that leaves one item opens it: it only ended typing, and a second Enter
    /// was needed for the one item the filter had found.
    func testEnterOpensTheOnlyMatch() {
        let driver = Driver(Fixtures.unlocked())
        _ = Update.apply(.key(.character("/")), to: &driver.state, now: driver.clock.now)
        driver.type("mail")
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["c3"])
        driver.press(.enter) { state in
            state.list.isFilterFocused = false
            state.list.selectedID = "c3"
            state.page = .detail(DetailState(itemID: "c3"))
        }
        driver.press(.escape) { $0.page = .list }
        XCTAssertEqual(driver.state.list.filter.text, "mail", "the filter is kept behind the item")
    }

    func testEnterWithNoMatchOnlyEndsTyping() {
        let driver = Driver(Fixtures.unlocked())
        _ = Update.apply(.key(.character("/")), to: &driver.state, now: driver.clock.now)
        driver.type("zzzz")
        driver.press(.enter) { $0.list.isFilterFocused = false }
    }

    /// `/` with a kept filter starts a new one (it appended: "mail" then `/bank` searched
    /// "mailbank"); the keys after it are the new filter's, not the list's commands.
    func testSlashWithAKeptFilterStartsANewOne() {
        let driver = Driver(Fixtures.unlocked())
        _ = Update.apply(.key(.character("/")), to: &driver.state, now: driver.clock.now)
        driver.type("finance")
        driver.press(.enter) { $0.list.isFilterFocused = false }
        driver.press(.character("/")) { state in
            state.list.filter = TextField()
            state.list.isFilterFocused = true
        }
        driver.type("bank")
        XCTAssertEqual(driver.state.list.filter.text, "bank")
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["b2"])
        driver.press(.character("d")) { $0.list.filter = TextField("bankd") }
        XCTAssertNil(driver.state.overlay, "d deleted instead of being typed")
    }

    func testSortByLastModified() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("t")) { $0.list.sort = .modified }
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["c3", "b2", "a1", "e5", "f6", "d4", "g7"])
    }

    func testEnterOpensTheDetailAndRRevealsThePassword() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("j")) { $0.list.selectedID = "b2" }
        driver.press(.enter) { $0.page = .detail(DetailState(itemID: "b2")) }
        driver.press(.character("r")) { $0.page = .detail(DetailState(itemID: "b2", isRevealed: true)) }
        driver.press(.escape) { $0.page = .list }
    }

    func testCopyingThePasswordStartsACountdownAndClearsAfterTenSeconds() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("c"), effects: [.copyToClipboard("long wifi passphrase")]) { state in
            state.clipboard = ClipboardCountdown(field: .password, until: FakeClock.start.addingTimeInterval(10))
            state.notice = Notice("Copied the password of “🔑 Home Wi-Fi”.", until: FakeClock.start.addingTimeInterval(5))
        }
        driver.clock.advance(5)
        driver.send(.tick) { $0.notice = nil }
        driver.clock.advance(4)
        driver.send(.tick)
        driver.clock.advance(1)
        driver.send(.tick, effects: [.clearClipboard]) { $0.clipboard = nil }
    }

    func testCopyingTheUsernameOfAnItemWithoutOneSaysWhy() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("u")) { state in
            state.notice = Notice("The item has no username.", until: FakeClock.start.addingTimeInterval(5))
        }
        driver.press(.character("j")) { $0.list.selectedID = "b2" }
        driver.press(.character("u"), effects: [.copyToClipboard("alice.smith")]) { state in
            state.clipboard = ClipboardCountdown(field: .username, until: FakeClock.start.addingTimeInterval(10))
            state.notice = Notice("Copied the username of “Bank”.", until: FakeClock.start.addingTimeInterval(5))
        }
    }

    func testAnItemWaitingForItsKeyCannotBeCopiedOrEdited() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.end) { $0.list.selectedID = "g7" }
        let reason = "The item is waiting for its key from another device."
        driver.press(.character("c")) { $0.notice = Notice(reason, until: FakeClock.start.addingTimeInterval(5)) }
        driver.press(.character("e"))
    }

    /// `d` asks, then moves the item to the trash (issue 43): it leaves the list and its count, and
    /// the Trash view shows it.
    func testDeleteAsksFirstAndMovesToTheTrash() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("j")) { $0.list.selectedID = "b2" }
        driver.press(.character("d")) { state in
            state.overlay = .confirm(Confirmation(question: "Move “Bank” to the trash?", action: .deleteItem(id: "b2"),
                                                  askedOn: .list))
        }
        driver.press(.character("n")) { $0.overlay = nil }
        _ = Update.apply(.key(.character("d")), to: &driver.state, now: driver.clock.now)
        driver.press(.character("y"), effects: [.deleteItem(id: "b2", title: "Bank")]) { state in
            state.overlay = nil
            state.awaiting = AwaitedWork(.deletion(itemID: "b2"))
        }
        driver.clock.advance(1)
        driver.send(.itemDeleted(id: "b2", title: "Bank"), effects: [.reload]) { state in
            state.awaiting = nil
            state.localWrites = 1
            if let index = state.items.firstIndex(where: { $0.id == "b2" }), var bank = state.items[index].item {
                bank.trashed = Timestamp(driver.clock.now)
                state.items[index].content = .ready(bank)
                state.items[index].hasLocalChange = true
            }
            state.list.selectedID = "a1"
            state.notice = Notice("Moved “Bank” to the trash (Z shows it).", until: driver.clock.now.addingTimeInterval(5))
            _ = state.scheduler.handle(.localChange, now: driver.clock.now)
        }
        XCTAssertFalse(driver.state.visibleItems.contains { $0.id == "b2" }, "the list does not show the trash")
        XCTAssertEqual(driver.state.trashedItems.map(\.id), ["b2"])
        XCTAssertEqual(driver.state.listedCount, driver.state.items.count - 1)
    }

    func testHelpOpensFromTheKeyTable() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("?")) { $0.overlay = .help }
        driver.press(.character("j"))
        driver.press(.character("?")) { $0.overlay = nil }
    }
}
