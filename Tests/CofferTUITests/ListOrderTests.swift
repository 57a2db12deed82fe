import CofferCore
import XCTest
@testable import CofferTUI
import CofferTestSupport

/// The list's title order from precomputed keys, and the filter narrowing as you type.
final class ListOrderTests: XCTestCase {
    private func item(_ id: String, _ title: String, username: String = "", notes: String = "") -> ScreenItem {
        ScreenItem(Item(id: id, title: title, entry: Entry(username: username, notes: notes),
                        created: Timestamp(milliseconds: 0)))
    }

    private func titleOrder(_ titles: [String]) -> [String] {
        let items = titles.enumerated().map { item("id\($0.offset)", $0.element) }
        return ItemFilter.sorted(items.reversed(), by: .title).map(\.displayTitle)
    }

    func testNumbersSortByValue() {
        XCTAssertEqual(titleOrder(["item 10", "item 2", "Item 1", "item 100", "item 9"]),
                       ["Item 1", "item 2", "item 9", "item 10", "item 100"])
        XCTAssertEqual(titleOrder(["v1.10", "v1.9", "v1.9.1", "v2"]), ["v1.9", "v1.9.1", "v1.10", "v2"])
        // Leading zeros do not change the value; the title's bytes break the tie.
        XCTAssertEqual(titleOrder(["a 7", "a 007", "a 08", "a 12345678901234567890", "a 99999999999999999999"]),
                       ["a 007", "a 7", "a 08", "a 12345678901234567890", "a 99999999999999999999"])
    }

    func testCaseAndAccentsAreIgnored() {
        XCTAssertEqual(titleOrder(["Zebra", "éclair", "apple", "Banana", "Dune", "eclair"]),
                       ["apple", "Banana", "Dune", "eclair", "éclair", "Zebra"])
        XCTAssertEqual(titleOrder(["b", "B", "Á", "a"]), ["a", "Á", "B", "b"])
    }

    func testSymbolsThenNumbersThenLetters() {
        XCTAssertEqual(titleOrder(["Mail", "42 Club", "🔑 Wi-Fi", "日本の銀行", "(old)", "Zoo"]),
                       ["(old)", "🔑 Wi-Fi", "42 Club", "Mail", "Zoo", "日本の銀行"])
    }

    func testUnreadableItemsComeLastByIDInEitherOrder() {
        let items = [ScreenItem(id: "z", content: .waitingForKey), item("b", "B"),
                     ScreenItem(id: "y", content: .corrupt("bad")), item("a", "A")]
        XCTAssertEqual(ItemFilter.sorted(items, by: .title).map(\.id), ["a", "b", "y", "z"])
        XCTAssertEqual(ItemFilter.sorted(items, by: .modified).map(\.id), ["a", "b", "y", "z"])
    }

    func testNarrowingRecognisesQueriesThatOnlyAddConditions() {
        func words(_ text: String) -> [[UInt8]] { ItemFilter.words(text) }
        XCTAssertTrue(ItemFilter.narrows(words("gith"), words("git")))
        XCTAssertTrue(ItemFilter.narrows(words("git hub"), words("git")))
        XCTAssertTrue(ItemFilter.narrows(words("xgitx"), words("git")))
        XCTAssertTrue(ItemFilter.narrows(words("git"), words("")))
        XCTAssertFalse(ItemFilter.narrows(words("gi"), words("git")))
        XCTAssertFalse(ItemFilter.narrows(words("gut"), words("git")))
        XCTAssertFalse(ItemFilter.narrows(words(""), words("git")))
    }

    /// Typing, deleting and retyping gives the rows a fresh filter gives, at every step.
    func testFilteringAsYouTypeMatchesFilteringFromScratch() {
        var generator = SeededGenerator(seed: 11)
        let pieces = ["al", "pha", " ", "Bra", "vo", "1", "2", "é", "E", "日本", "🔑", "x"]
        func text(_ count: Int) -> String { (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined() }
        var items = (0..<300).map { item("i\($0)", text(3), username: text(2), notes: text(2)) }
        items.append(ScreenItem(id: "w", content: .waitingForKey))
        var state = Fixtures.unlocked()
        state.items = items
        for _ in 0..<40 {
            let key = Int.random(in: 0..<4, using: &generator)
            if key == 0, !state.list.filter.text.isEmpty {
                state.list.filter = TextField(String(state.list.filter.text.dropLast()))
            } else {
                state.list.filter = TextField(state.list.filter.text + pieces.randomElement(using: &generator)!)
            }
            let expected = ItemFilter.visible(items, query: state.list.filter.text, sort: state.list.sort)
            XCTAssertEqual(state.visibleItems.map(\.id), expected.map(\.id), state.list.filter.text)
            let oneByOne = items.filter { ItemFilter.matches($0, query: state.list.filter.text) }
            XCTAssertEqual(Set(state.visibleItems.map(\.id)), Set(oneByOne.map(\.id)))
        }
    }

    /// Rows remembered for a query belong to the items they were found in: new items start afresh.
    func testNewItemsForgetTheRowsFoundBefore() {
        var state = Fixtures.unlocked()
        state.items = (0..<50).map { item("i\($0)", "alpha \($0)") }
        state.list.filter = TextField("alpha")
        XCTAssertEqual(state.visibleItems.count, 50)
        state.items = (0..<5).map { item("j\($0)", $0.isMultiple(of: 2) ? "alpha \($0)" : "beta") }
        XCTAssertEqual(state.visibleItems.map(\.id), ["j0", "j2", "j4"])
        state.list.filter = TextField("alpha 4")
        XCTAssertEqual(state.visibleItems.map(\.id), ["j4"])
        state.list.filter = TextField("alpha")
        XCTAssertEqual(state.visibleItems.map(\.id), ["j0", "j2", "j4"])
    }
}
