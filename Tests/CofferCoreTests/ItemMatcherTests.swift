import XCTest
@testable import CofferCore
import CofferTestSupport

/// `ItemMatcher`: the in-place ASCII search, and the byte search over a kept search text (the
/// agent's index), find exactly what folding every field finds.
final class ItemMatcherTests: XCTestCase {
    /// The matcher before the ASCII path: fold every field, then substring search.
    private func foldingMatches(_ query: String, _ item: Item) -> Bool {
        let words = query.split(whereSeparator: \.isWhitespace).map { ItemMatcher.fold(String($0)) }
        let fields = ([item.title, item.entry.username, item.entry.notes] + item.origins + item.tags).map(ItemMatcher.fold)
        return words.allSatisfy { word in fields.contains { $0.contains(word) } }
    }

    func testMatchesLikeFoldingEveryField() {
        var generator = SeededGenerator(seed: 7)
        let pieces = ["a", "B", "ab", "AB", "é", "É", "e", "x", " ", "-", "Z", "日本", "🔑", "\r\n", "ß", "SS"]
        func text() -> String { (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() }
        for _ in 0..<3000 {
            let item = Fixture.item(id: "i", title: text(), username: text(), password: text(), origins: [text()], tags: [text(), text()])
            let query = text() + (Bool.random(using: &generator) ? " " + text() : "")
            XCTAssertEqual(ItemMatcher(query: query).matches(item), foldingMatches(query, item), "\(query.debugDescription) in \(item.title.debugDescription)")
            var texts = SearchTexts()
            texts.appendRow { ItemMatcher.appendSearchText(of: item, to: &$0) }
            XCTAssertEqual(texts.rows(matching: ItemMatcher(query: query).foldedWordBytes) == [0], foldingMatches(query, item),
                           "search text: \(query.debugDescription) in \(item.title.debugDescription)")
        }
    }

    func testIgnoresCaseAndAccents() {
        let item = Fixture.item(title: "GitHub Enterprise", username: "José", origins: ["https://Example.COM"], tags: ["Work"])
        for query in ["github", "HUB ent", "jose", "JOSÉ", "example.com", "work", ""] {
            XCTAssertTrue(ItemMatcher(query: query).matches(item), query)
        }
        for query in ["gitlab", "github gitlab", "hunter2"] {
            XCTAssertFalse(ItemMatcher(query: query).matches(item), query)
        }
    }
}
