import Foundation
import GRDB
import XCTest
@testable import CofferCore
import CofferTestSupport

/// The sealed search index (`SearchIndex`): a search finds exactly what opening every item
/// finds, whatever state the index is in, and skips only rows it indexed from the same bytes.
final class SearchIndexTests: XCTestCase {
    private func search(_ vault: Vault, _ query: String) async throws -> [ListedItem] {
        let matcher = ItemMatcher(query: query)
        return try await vault.searchItems(matcher, where: { matcher.matches($0) })
    }

    /// What a search must return: every item opened and matched (and every unreadable one).
    private func everyItemOpened(_ vault: Vault, _ query: String) async throws -> [ListedItem] {
        let matcher = ItemMatcher(query: query)
        return try await vault.listItems(where: { matcher.matches($0) })
    }

    /// The stored chunks, sealed.
    private func sealedIndex(_ vault: Vault) throws -> [Data] {
        var chunks: [Data] = []
        try vault.database.read { db in
            try VaultDatabase.forEachSealedSearchIndexChunk(in: db) { _, sealed in chunks.append(Data(sealed)) }
        }
        return chunks
    }

    private func assertSameResults(_ vault: Vault, _ queries: [String], _ context: String,
                                   file: StaticString = #filePath, line: UInt = #line) async throws {
        for query in queries {
            let expected = try await everyItemOpened(vault, query).sorted { $0.id < $1.id }
            let found = try await search(vault, query).sorted { $0.id < $1.id }
            XCTAssertEqual(found, expected, "\(context): \(query.debugDescription)", file: file, line: line)
        }
    }

    func testFindsWhatOpeningEveryItemFindsWhateverTheIndexHolds() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        var generator = SeededGenerator(seed: 42)
        let pieces = ["mail", "Bank", "é", "É", "x", "Zürich", "日本", "🔑", "git", "HUB", "-", "ß"]
        func text() -> String {
            (0..<Int.random(in: 0...3, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
        }
        var items = (0..<60).map { _ in
            Fixture.item(title: "t" + text(), username: text(), password: "secret-\(text())", origins: ["o" + text()], tags: ["g" + text()])
        }
        try await vault.addAll(items)
        let queries = ["mail", "bank", "e", "zurich", "日本", "git hub", "é x", "secret", "nothing-at-all", "ß"]

        try await assertSameResults(vault, queries, "no index yet")
        XCTAssertEqual(try sealedIndex(vault).count, 1, "the first search stores an index")
        try await assertSameResults(vault, queries, "index current")

        // Another process edits, adds and removes: the stale entries are opened again.
        let other = try Vault.open(at: path)
        try await other.unlock(passphrase: Fixture.passphrase("pass"))
        for index in stride(from: 0, to: 30, by: 3) {
            var changed = try await other.item(items[index].id)
            changed.title = "mail" + text()
            changed.entry.notes = "Bank"
            try await other.update(changed)
        }
        for index in stride(from: 1, to: 30, by: 5) { try await other.remove(items[index].id) }
        let added = Fixture.item(title: "Zürich mail", username: "git")
        _ = try await other.add(added)
        items.append(added)
        try await assertSameResults(vault, queries, "after another process's changes")

        // An index that does not open (another vault's, or damaged) is only rebuilt.
        let elsewhere = try makeTemporaryDirectory().appendingPathComponent("other.db").path
        let otherVault = try Vault.create(at: elsewhere, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        try await otherVault.addAll([Fixture.item(title: "mail from elsewhere")])
        _ = try await search(otherVault, "mail")
        let foreign = try sealedIndex(otherVault)
        XCTAssertEqual(foreign.count, 1)
        try vault.database.write { try VaultDatabase.saveSearchIndex(foreign, in: $0) }
        try await assertSameResults(vault, queries, "another vault's index")
        XCTAssertNotEqual(try sealedIndex(vault), foreign, "the foreign index was replaced")
        try vault.database.write { try VaultDatabase.saveSearchIndex([Data("garbage".utf8)], in: $0) }
        try await assertSameResults(vault, queries, "a damaged index")
    }

    func testAnIndexedSearchOpensOnlyTheMatchesAndWritesNothing() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        let items = (0..<40).map { Fixture.item(title: $0 % 10 == 0 ? "Needle \($0)" : "hay \($0)", username: "u\($0)") }
        try await vault.addAll(items)

        _ = try await search(vault, "needle")
        var use = await vault.lastSearch
        XCTAssertEqual(use.skipped, 0, "nothing indexed before the first search")
        XCTAssertEqual(use.opened, 40)
        let stored = try sealedIndex(vault)
        XCTAssertEqual(stored.count, 1)

        let found = try await search(vault, "needle")
        XCTAssertEqual(Set(found.compactMap { $0.item?.title }), ["Needle 0", "Needle 10", "Needle 20", "Needle 30"])
        use = await vault.lastSearch
        XCTAssertEqual(use.skipped, 36, "the rows whose text lacks the word are skipped unopened")
        XCTAssertEqual(use.opened, 4)
        XCTAssertEqual(try sealedIndex(vault), stored, "an index still exact is not written again")

        // One row edited: opened again, and only then is the index rewritten.
        var edited = try await vault.item(items[1].id)
        edited.title = "needle now"
        try await vault.update(edited)
        let again = try await search(vault, "needle")
        XCTAssertTrue(again.contains { $0.item?.title == "needle now" })
        use = await vault.lastSearch
        XCTAssertEqual(use.opened, 5, "the four matches and the changed row")
        XCTAssertNotEqual(try sealedIndex(vault), stored)
        _ = try await search(vault, "needle")
        use = await vault.lastSearch
        XCTAssertEqual(use.skipped, 35)
        XCTAssertEqual(use.opened, 5)
    }

    /// A row changed on disk has another fingerprint: it is opened, and reported as tampered,
    /// even where its indexed text lacks the word.
    func testATamperedRowIsStillReported() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        let items = [Fixture.item(title: "alpha"), Fixture.item(title: "beta")]
        try await vault.addAll(items)
        _ = try await search(vault, "alpha")
        try vault.database.write { db in
            let json = try XCTUnwrap(String.fetchOne(db, sql: "SELECT record FROM pending WHERE id = ?", arguments: [items[1].id]))
            let start = try XCTUnwrap(json.range(of: "\"encrypted\":\"")).upperBound
            let position = json.index(start, offsetBy: 60)
            let tampered = json.replacingCharacters(in: position...position, with: json[position] == "A" ? "B" : "A")
            try db.execute(sql: "UPDATE pending SET record = ? WHERE id = ?", arguments: [tampered, items[1].id])
        }
        let found = try await search(vault, "alpha")
        guard case .corrupt? = found.first(where: { $0.id == items[1].id })?.state else {
            return XCTFail("the tampered row was not reported: \(found)")
        }
        XCTAssertEqual(found.compactMap { $0.item?.title }, ["alpha"])
    }

    /// What the index holds is sealed: no title, username or note is in the stored bytes.
    func testTheStoredIndexHoldsNoPlaintext() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        var item = Fixture.item(title: "canarytitle", username: "canaryuser")
        item.entry.notes = "canarynote"
        try await vault.addAll([item])
        _ = try await search(vault, "canary")
        let stored = try XCTUnwrap(sealedIndex(vault).first)
        for canary in ["canarytitle", "canaryuser", "canarynote"] {
            XCTAssertNil(stored.range(of: Data(canary.utf8)), canary)
        }
        let keys = SearchIndexKeys(vaultKey: try await vault.unlockedSession().vaultKey)
        XCTAssertEqual(SearchIndex.open(stored, number: 0, with: keys)?.count, 1)
        XCTAssertNil(SearchIndex.open(stored, number: 1, with: keys), "a chunk moved to another number does not open")
    }
}

extension SearchIndexTests {
    /// A plaintext that authenticates but does not parse (truncated, or any byte changed) is no
    /// index, or a well-formed one: never a crash, never a read past its bytes.
    func testEveryTruncationAndByteChangeOfTheIndexIsRefusedOrParsed() throws {
        let keys = SearchIndexKeys(vaultKey: .random(count: KeyRing.keyLength))
        var index = SearchIndex()
        for (number, title) in ["alpha", "Bêta", "", "日本"].enumerated() {
            var text: [UInt8] = []
            ItemMatcher.appendSearchText(of: Fixture.item(title: title), to: &text)
            text.withUnsafeBytes { index.append("id-\(number)", fingerprint: UInt64(number) << 60 | 7, text: $0) }
        }
        let plaintext = try Envelope.open(index.sealed(number: 0, with: keys), symmetricKey: keys.sealing,
                                          collection: SearchIndex.collection, id: SearchIndex.sealedID(0))
        let reopened = try XCTUnwrap(SearchIndex.open(index.sealed(number: 0, with: keys), number: 0, with: keys))
        XCTAssertEqual(reopened.count, 4)
        var positions: [String: Int] = [:]
        reopened.forEachID { positions[$0] = $1 }
        XCTAssertEqual(positions, ["id-0": 0, "id-1": 1, "id-2": 2, "id-3": 3])
        for position in 0..<4 {
            XCTAssertTrue(reopened.entry(position, isFor: "id-\(position)"))
            XCTAssertFalse(reopened.entry(position, isFor: "id-\(position)x"))
            XCTAssertEqual(reopened.entries[position].fingerprint, index.entries[position].fingerprint)
            XCTAssertEqual(reopened.text(of: position, holdsEvery: ItemMatcher(query: "BÊTA").foldedWordBytes.map(ByteSearch.Needle.init)), position == 1)
        }
        func reseal(_ bytes: Data) throws -> Data {
            try Envelope.seal(bytes, symmetricKey: keys.sealing, collection: SearchIndex.collection, id: SearchIndex.sealedID(0))
        }
        for length in 0..<plaintext.count {
            XCTAssertNil(SearchIndex.open(try reseal(plaintext.prefix(length)), number: 0, with: keys), "truncated to \(length)")
        }
        for position in 0..<plaintext.count {
            for value: UInt8 in [0x00, 0xFF, plaintext[position] ^ 0x01] {
                var changed = plaintext
                changed[position] = value
                if let parsed = SearchIndex.open(try reseal(changed), number: 0, with: keys) {
                    for entry in parsed.entries {
                        XCTAssertLessThanOrEqual(entry.textStart + entry.textLength, plaintext.count)
                        XCTAssertLessThanOrEqual(entry.idStart + entry.idLength, plaintext.count)
                    }
                }
            }
        }
        XCTAssertNil(SearchIndex.open(try reseal(plaintext + Data([0])), number: 0, with: keys), "a trailing byte")
    }
}

extension SearchIndexTests {
    /// The pass over an index of several chunks: rows in the order of the entries are found one
    /// after the other, rows in another order (added, removed, changed) by id, and the next index
    /// holds exactly the rows read, in their order.
    func testAPassOverSeveralChunksFollowsAddedRemovedAndChangedRows() throws {
        let keys = SearchIndexKeys(vaultKey: .random(count: KeyRing.keyLength))
        typealias Row = (id: String, fingerprint: UInt64, item: Item)
        func row(_ number: Int, _ title: String, version: UInt64 = 1) -> Row {
            ("id-\(number)", UInt64(number) << 8 | version, Fixture.item(id: "id-\(number)", title: title))
        }
        /// One pass over `rows`: the ids it opened (skipped rows are not), the next chunks (those
        /// left unchanged taken from `stored`), and the numbers of those rewritten.
        func pass(_ rows: [Row], over stored: [SearchIndex], _ query: String)
            -> (opened: [String], next: [SearchIndex]?, rewritten: [Int]) {
            var pass = SearchIndexPass(words: ItemMatcher(query: query).indexableWords!, stored: stored, keys: keys,
                                       entriesPerChunk: 3)
            var opened: [String] = []
            for row in rows where !pass.skips(row.id, fingerprint: row.fingerprint) {
                opened.append(row.id)
                pass.opened(row.id, fingerprint: row.fingerprint, item: row.item)
            }
            guard let next = pass.next() else { return (opened, nil, []) }
            var rewritten: [Int] = []
            let chunks = next.enumerated().map { number, chunk -> SearchIndex in
                guard case .rewritten(let new) = chunk else { return stored[number] }
                rewritten.append(number)
                return new
            }
            return (opened, chunks, rewritten)
        }
        func ids(_ chunks: [SearchIndex]) -> [String] {
            chunks.flatMap { chunk in
                var ids: [(String, Int)] = []
                chunk.forEachID { ids.append(($0, $1)) }
                return ids.sorted { $0.1 < $1.1 }.map(\.0)
            }
        }
        var rows = (0..<10).map { row($0, $0 % 4 == 0 ? "needle \($0)" : "hay \($0)") }
        let first = pass(rows, over: [], "needle")
        XCTAssertEqual(first.opened.count, 10)
        let chunks = try XCTUnwrap(first.next)
        XCTAssertEqual(chunks.map(\.count), [3, 3, 3, 1])
        XCTAssertEqual(ids(chunks), rows.map(\.id))
        // Sealed and opened again, chunk by chunk.
        let reopened = try chunks.enumerated().map { number, chunk in
            try XCTUnwrap(SearchIndex.open(chunk.sealed(number: number, with: keys), number: number, with: keys))
        }

        let again = pass(rows, over: reopened, "needle")
        XCTAssertEqual(again.opened, ["id-0", "id-4", "id-8"], "only the matches are opened")
        XCTAssertNil(again.next, "an exact index is not written again")

        // One row changed in place, one added at the end: only their chunks are rewritten.
        var edited = rows
        edited[4] = row(4, "hay again", version: 3)
        edited.append(row(11, "hay added"))
        let inPlace = pass(edited, over: reopened, "needle")
        XCTAssertEqual(inPlace.opened, ["id-0", "id-4", "id-8", "id-11"])
        XCTAssertEqual(inPlace.rewritten, [1, 3])
        XCTAssertEqual(ids(try XCTUnwrap(inPlace.next)), edited.map(\.id))
        XCTAssertEqual(pass(edited, over: try XCTUnwrap(inPlace.next), "needle").opened, ["id-0", "id-8"])

        rows.remove(at: 2)
        rows[4] = row(5, "needle now", version: 2)
        rows.insert(row(10, "needle added"), at: 0)
        rows.swapAt(6, 7)
        let changed = pass(rows, over: reopened, "needle")
        XCTAssertEqual(changed.opened, ["id-10", "id-0", "id-4", "id-5", "id-8"])
        XCTAssertEqual(changed.rewritten, [0, 1, 2], "the last chunk holds the same row as before")
        let next = try XCTUnwrap(changed.next)
        XCTAssertEqual(ids(next), rows.map(\.id), "the next index follows the rows as read")
        XCTAssertEqual(pass(rows, over: next, "needle").opened, ["id-10", "id-0", "id-4", "id-5", "id-8"])
        XCTAssertNil(pass(rows, over: next, "needle").next)
        XCTAssertEqual(pass(rows, over: next, "hay").opened, rows.map(\.id).filter { !["id-10", "id-0", "id-4", "id-5", "id-8"].contains($0) })
        // A chunk missing (it did not open): its rows are opened and indexed again.
        var partial = next
        partial.remove(at: 1)
        let repaired = pass(rows, over: partial, "needle")
        let matches: Set = ["id-10", "id-0", "id-4", "id-5", "id-8"]
        XCTAssertEqual(Set(repaired.opened), matches.union(ids([next[1]])))
        XCTAssertEqual(ids(try XCTUnwrap(repaired.next)), rows.map(\.id))
    }
}

extension SearchIndexTests {
    /// In the vault: an edit rewrites the chunk of its row only, and chunks past the last row go.
    func testAnEditRewritesOnlyItsChunk() async throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        let count = SearchIndex.entriesPerChunk + 100
        let items = (0..<count).map { Fixture.item(title: $0 % 1000 == 0 ? "needle \($0)" : "hay \($0)") }
        try await vault.addAll(items)
        let found = try await search(vault, "needle")
        XCTAssertEqual(found.count, 5)
        let before = try sealedIndex(vault)
        XCTAssertEqual(before.count, 2)

        // The first row read is in the first chunk.
        let first = try XCTUnwrap(vault.database.read { db in
            try String.fetchOne(db, sql: "SELECT id FROM pending WHERE source = 'local' AND collection = 'items' ORDER BY key")
        })
        var edited = try await vault.item(first)
        edited.title = "needle edited"
        try await vault.update(edited)
        let wasNeedle = try XCTUnwrap(items.first { $0.id == first }).title.hasPrefix("needle")
        let foundAgain = try await search(vault, "needle")
        XCTAssertEqual(foundAgain.count, wasNeedle ? 5 : 6)
        let after = try sealedIndex(vault)
        XCTAssertEqual(after.count, 2)
        XCTAssertNotEqual(after[0], before[0], "the edited row's chunk is rewritten")
        XCTAssertEqual(after[1], before[1], "the other chunk is left as it was")

        for item in items.suffix(200) { try await vault.remove(item.id) }
        _ = try await search(vault, "needle")
        XCTAssertEqual(try sealedIndex(vault).count, 1, "a chunk past the last row is removed")

    }
}
