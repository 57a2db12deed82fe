import CofferCore
import XCTest
@testable import CofferAgent

/// The agent's index as a value (`AgentIndex`), fed rows as a scan hands them: what a query finds
/// after rows are replaced, removed and compacted, and the naming rules on its bytes.
final class AgentIndexTests: XCTestCase {
    private static func item(_ title: String, kind: String = Entry.loginKind, notes: String = "") -> Item {
        Item(title: title, entry: Entry(kind: kind, username: "ann", password: "secret", notes: notes), created: .now())
    }

    private static func scan(_ item: Item, fingerprint: Int = 1) -> ItemRowScan {
        ItemRowScan(id: item.id, fingerprint: fingerprint, state: .ready(item))
    }

    private static func words(_ query: String) -> [[UInt8]] { ItemMatcher(query: query).foldedWordBytes }

    func testAReplacedRowIsFoundByItsNewTextOnlyAndARemovedOneNotAtAll() {
        var index = AgentIndex()
        let items = (0..<20).map { Self.item("Box \($0)", notes: "cargo") }
        for item in items { index.take(Self.scan(item)) }
        XCTAssertTrue(index.knows(items[3].id, fingerprint: 1))
        XCTAssertFalse(index.knows(items[3].id, fingerprint: 2), "another version of the row is opened again")

        var renamed = items[3]
        renamed.title = "Renamed crate"
        renamed.entry.notes = ""
        index.take(Self.scan(renamed, fingerprint: 2))
        index.remove(items[4].id)
        XCTAssertEqual(index.ids(matching: Self.words("crate")), [items[3].id])
        XCTAssertEqual(Set(index.ids(matching: Self.words("cargo"))), Set(items.map(\.id)).subtracting([items[3].id, items[4].id]))
        XCTAssertEqual(index.ids(matching: []).count, 19, "every readable item, once")
        XCTAssertEqual(index.count, 19)
        XCTAssertTrue(index.knows(items[3].id, fingerprint: 2))
        XCTAssertFalse(index.knows(items[4].id, fingerprint: 1))
        XCTAssertEqual(index.ids(named: items[4].id), [], "a removed item's id names nothing")
        XCTAssertEqual(index.ids(forID: items[3].id), [items[3].id])
    }

    func testCompactingKeepsWhatEveryQueryFinds() {
        var index = AgentIndex()
        let items = (0..<6000).map { Self.item("Box \($0)", notes: $0 % 2 == 0 ? "even" : "odd") }
        for item in items { index.take(Self.scan(item)) }
        for item in items[..<5000] { index.remove(item.id) }
        XCTAssertTrue(index.isWorthCompacting)
        let compacted = index.compacted()
        XCTAssertEqual(compacted.rowCount, 1000)
        XCTAssertFalse(compacted.isWorthCompacting)
        for query in ["even", "odd", "box 5999", ""] {
            XCTAssertEqual(compacted.ids(matching: Self.words(query)), index.ids(matching: Self.words(query)), query)
        }
        XCTAssertEqual(compacted.ids(matching: Self.words("even")).count, 500)
        XCTAssertEqual(compacted.ids(named: "Box 5999"), [items[5999].id])
        XCTAssertTrue(compacted.knows(items[5500].id, fingerprint: 1))
        XCTAssertFalse(compacted.knows(items[10].id, fingerprint: 1))
    }

    /// The rules of `ItemNameResolver`, in order: the first that matches anything decides.
    func testNamesFollowTheResolversRules() {
        var index = AgentIndex()
        let bank = Self.item("Bank")
        let banking = Self.item("Online Banking")
        let cafe = Self.item("Café Müller")
        for item in [bank, banking, cafe] { index.take(Self.scan(item)) }
        XCTAssertEqual(index.ids(named: bank.id), [bank.id])
        XCTAssertEqual(index.ids(named: String(banking.id.prefix(8)).uppercased()), [banking.id], "an id prefix, any case")
        XCTAssertEqual(index.ids(named: "BANK"), [bank.id], "an exact title wins over parts of titles")
        XCTAssertEqual(index.ids(named: "online"), [banking.id])
        XCTAssertEqual(index.ids(named: "cafe muller"), [cafe.id], "folded: case and diacritics")
        XCTAssertEqual(Set(index.ids(named: "ban")), [bank.id, banking.id], "several: the caller reports them")
        XCTAssertEqual(index.ids(named: "nothing"), [])
        // The same answers as the resolver over the items themselves.
        let candidates = [bank, banking, cafe].map { ItemNameResolver.Candidate(id: $0.id, title: $0.title) }
        for name in ["BANK", "online", "cafe muller", "nothing", String(cafe.id.prefix(6))] {
            let expected: [String]
            switch ItemNameResolver.resolve(name, among: candidates) {
            case .found(let id): expected = [id]
            case .none: expected = []
            case .ambiguous(let matches): expected = matches.map(\.id)
            }
            XCTAssertEqual(Set(index.ids(named: name)), Set(expected), name)
        }
    }

    /// A whole title is found through the index's title table — as it grows, as rows are replaced
    /// and removed, and after compacting — with every item of that title; a part of a title is
    /// still found in the text.
    func testWholeTitlesThroughGrowthReplacementRemovalAndCompaction() {
        var index = AgentIndex()
        let items = (0..<3000).map { Self.item("Box \($0)") }
        for item in items { index.take(Self.scan(item)) }
        XCTAssertEqual(index.ids(named: "BOX 2999"), [items[2999].id])
        XCTAssertEqual(index.ids(named: "Box 0"), [items[0].id], "the first row, placed again as the table grew")
        XCTAssertEqual(Set(index.ids(named: "ox 299")), Set(items[2990...2999].map(\.id) + [items[299].id]), "a part: every title holding it")

        var renamed = items[5]
        renamed.title = "Crate"
        index.take(Self.scan(renamed, fingerprint: 2))
        XCTAssertEqual(index.ids(named: "crate"), [items[5].id])
        XCTAssertFalse(index.ids(named: "Box 5").contains(items[5].id), "its old title names it no more")
        let twin = Self.item("box 7")
        index.take(Self.scan(twin))
        XCTAssertEqual(Set(index.ids(named: "Box 7")), [items[7].id, twin.id], "two of one title: the caller reports both")
        index.remove(items[8].id)
        XCTAssertFalse(index.ids(named: "Box 8").contains(items[8].id))

        for item in items[100..<2500] { index.remove(item.id) }
        let compacted = index.compacted()
        XCTAssertEqual(compacted.ids(named: "box 2999"), [items[2999].id])
        XCTAssertEqual(compacted.ids(named: "crate"), [items[5].id])
        XCTAssertEqual(Set(compacted.ids(named: "Box 7")), [items[7].id, twin.id])
        XCTAssertEqual(compacted.ids(named: "Box 1000"), [], "removed before compacting")
    }

    /// An unreadable row is selected by every query (to be reported), is never taken as known,
    /// and has no title to be named by; `ssh-key` items are the SSH socket's.
    func testUnreadableRowsAndSSHKeys() {
        var index = AgentIndex()
        let bank = Self.item("Bank")
        let key = Self.item("Deploy key", kind: ItemKind.sshKey.name)
        index.take(Self.scan(bank))
        index.take(Self.scan(key))
        index.take(ItemRowScan(id: "waiting-item", fingerprint: 7, state: .waitingForKey))
        XCTAssertEqual(index.ids(matching: Self.words("bank")), [bank.id, "waiting-item"])
        XCTAssertEqual(index.ids(matching: Self.words("absent")), ["waiting-item"])
        XCTAssertEqual(index.ids(forID: bank.id), [bank.id, "waiting-item"])
        XCTAssertFalse(index.knows("waiting-item", fingerprint: 7), "opened again at each scan: its key may have come")
        XCTAssertEqual(index.ids(named: "waiting-item"), ["waiting-item"])
        XCTAssertEqual(index.ids(named: "item"), [], "no title to hold a part of")
        XCTAssertEqual(index.sshKeyIDs, [key.id])
        index.take(ItemRowScan(id: "waiting-item", fingerprint: 7, state: .ready(Self.item("Bank vault"))))
        XCTAssertEqual(index.ids(matching: Self.words("bank")).count, 2, "its key came: found by its text, once")
        XCTAssertTrue(index.knows("waiting-item", fingerprint: 7))
    }

    /// A scan that sees rows no more clears them; rows appended during it stay.
    func testRowsAScanDidNotSeeAreCleared() throws {
        var index = AgentIndex()
        let items = (0..<4).map { Self.item("Box \($0)") }
        for item in items { index.take(Self.scan(item)) }
        var seen = [Bool](repeating: true, count: index.rowCount)
        seen[try XCTUnwrap(index.row(of: items[1].id))] = false
        let added = Self.item("Box new")
        index.take(Self.scan(added))
        index.clearRows(unseen: seen)
        XCTAssertEqual(Set(index.ids(matching: Self.words("box"))), Set([items[0], items[2], items[3], added].map(\.id)))
    }
}
