import Foundation
import XCTest

/// `list` (with `--tag` and `--origin`) and `search` over one vault of three items, only read.
final class ListSearchTests: XCTestCase {
    private struct Seed: @unchecked Sendable {
        var vault: TestVault
        var cafe: String
        var bank: String
        var mail: String
    }

    nonisolated(unsafe) private static var shared: Seed?

    private func seed() throws -> Seed {
        if let seed = Self.shared { return seed }
        let vault = try TestVault.make()
        // Added side by side: concurrent writers must not lose each other's item keys.
        let ids = try vault.addAll([
            ["Café ☕ 東京 Ωmega", "--username", "alice", "--password", "cafe-secret", "--origin", "https://Example.com/x",
             "--tag", "Work", "--notes", "Säntis hike"],
            ["bank", "--username", "BOB@corp", "--password", "hunter2secret", "--origin", "bank.example.org",
             "--tag", "finance", "--tag", "work", "--notes", "PIN: öffnen"],
            ["Mail", "--username", "carol", "--origin", "https://mail.example.com/login", "--tag", "personal",
             "--notes", "recovery codes in the safe"],
        ])
        let (cafe, bank, mail) = (ids[0], ids[1], ids[2])
        let seed = Seed(vault: vault, cafe: cafe, bank: bank, mail: mail)
        Self.shared = seed
        return seed
    }

    override class func tearDown() {
        shared?.vault.destroy()
        shared = nil
        super.tearDown()
    }

    private func ids(_ items: [[String: Any]]) -> [String] { items.compactMap { $0["id"] as? String } }

    /// `search QUERY` and `show NAME --field F` are read by hand when plain (`ItemCommandByHand`):
    /// each spelling answers as ArgumentParser's parse does, and what the hand reader leaves to it
    /// still gets its errors.
    func testSpellingsReadByHandAnswerAsTheFullParse() throws {
        let seed = try seed()
        let vault = seed.vault
        let plain = try vault.ok(["search", "work", "--json"])
        XCTAssertEqual(Set(ids(try plain.jsonArray())), [seed.cafe, seed.bank])
        let reordered = try CofferProcess.run(["search", "--json", "work", "--vault=\(vault.path)", "--passphrase-file",
                                               vault.passphraseFile], home: vault.root)
        assertOK(reordered)
        XCTAssertEqual(reordered.out, plain.out, "options after the command, the = form, the flag first")
        assertError(try vault.run(["search", "work", "bank"]), 2, mentions: ["bank"])
        XCTAssertEqual(try vault.ok(["search", "--", "-nothing-like-this"]).out, "", "a query after --")

        XCTAssertEqual(try vault.ok(["show", "bank", "--field", "password"]).line, "hunter2secret")
        XCTAssertEqual(try vault.ok(["show", "--field=username", "BANK"]).line, "BOB@corp")
        XCTAssertEqual(try vault.ok(["show", "mail", "--field", "origin"]).line, "https://mail.example.com/login")
        assertError(try vault.run(["show", "bank", "--field", "nosuch"]), 2, mentions: ["nosuch", "password"])
        assertError(try vault.run(["show", "bank", "--field", "kind"]), 2)
        assertError(try vault.run(["show", "bank", "--field", ""]), 2)
        assertError(try vault.run(["show", "nothing-like-this", "--field", "password"]), 4)
    }

    func testListJSONHasExactlyTheSummaryKeysSortedByTitle() throws {
        let seed = try seed()
        let listed = try seed.vault.ok(["list", "--json"])
        XCTAssertEqual(listed.err, "", "every item opens (none waits for its key)")
        let items = try listed.jsonArray()
        XCTAssertEqual(ids(items), [seed.bank, seed.cafe, seed.mail], "list is sorted by title, case-insensitively")
        for item in items {
            assertKeys(item, Shapes.list, "list --json item")
            XCTAssertEqual(item["badges"] as? [String], ["pending"])
            XCTAssertEqual(item["disabled"] as? Bool, false)
            XCTAssertTrue(item["origins"] is [String] && item["tags"] is [String])
        }
        let first = items[0]
        XCTAssertEqual(first["title"] as? String, "bank")
        XCTAssertEqual(first["username"] as? String, "BOB@corp")
        XCTAssertEqual(first["origins"] as? [String], ["bank.example.org"])
        XCTAssertEqual(first["tags"] as? [String], ["finance", "work"])

        let table = try seed.vault.ok(["list"]).out
        XCTAssertEqual(table.split(separator: "\n").count, 3, table)
        for text in ["Café ☕ 東京 Ωmega", "BOB@corp", "https://mail.example.com/login", seed.bank] {
            XCTAssertTrue(table.contains(text), "list does not show \(text):\n\(table)")
        }
        XCTAssertFalse(table.contains("hunter2secret") || table.contains("Säntis"), table)
    }

    func testListByTagIgnoresCase() throws {
        let seed = try seed()
        let cases: [(String, [String])] = [
            ("work", [seed.bank, seed.cafe]), ("WORK", [seed.bank, seed.cafe]), (" Work ", [seed.bank, seed.cafe]),
            ("personal", [seed.mail]), ("wor", []), ("nothing", []),
        ]
        let results = try seed.vault.okAll(cases.map { ["list", "--json", "--tag", $0.0] })
        for ((tag, expected), result) in zip(cases, results) {
            XCTAssertEqual(ids(try result.jsonArray()), expected, "list --tag '\(tag)'")
        }
    }

    func testListByOriginMatchesTheHost() throws {
        let seed = try seed()
        let cases: [([String], [String])] = [
            (["--origin", "example.com"], [seed.cafe]),
            (["--origin", "EXAMPLE.com"], [seed.cafe]),
            (["--origin", "https://example.com/other/page"], [seed.cafe]),
            (["--origin", "http://Example.com"], [seed.cafe]),
            (["--origin", "mail.example.com"], [seed.mail]),
            (["--origin", "https://bank.example.org/login"], [seed.bank]),
            (["--origin", "nothing.test"], []),
            (["--origin", "example.com", "--tag", "work"], [seed.cafe]),
            (["--origin", "example.com", "--tag", "personal"], []),
        ]
        let results = try seed.vault.okAll(cases.map { ["list", "--json"] + $0.0 })
        for ((options, expected), result) in zip(cases, results) {
            XCTAssertEqual(ids(try result.jsonArray()), expected, "list \(options.joined(separator: " "))")
        }
    }

    func testSearchIsCaseAndDiacriticInsensitiveOverTheTextFields() throws {
        let seed = try seed()
        let expectations: [(String, [String])] = [
            ("cafe", [seed.cafe]),          // title, without the accent
            ("CAFÉ", [seed.cafe]),          // title, upper case
            ("東京", [seed.cafe]),
            ("ΩMEGA", [seed.cafe]),
            ("ωmega", [seed.cafe]),         // Greek case folding
            ("ALICE", [seed.cafe]),         // username
            ("bob@corp", [seed.bank]),
            ("example.com", [seed.cafe, seed.mail]), // origins
            ("Finance", [seed.bank]),       // tags
            ("WORK", [seed.bank, seed.cafe]),
            ("santis", [seed.cafe]),        // notes, without the umlaut
            ("OFFNEN", [seed.bank]),
            ("recovery safe", [seed.mail]), // every word must match
            ("mail carol", [seed.mail]),
            ("recovery alice", []),
            ("hunter2", []),                // never the password
            ("zzz", []),
        ]
        let results = try seed.vault.okAll(expectations.map { ["search", $0.0, "--json"] } + [["search", "Cafe"]])
        XCTAssertTrue(results.last?.out.contains("Café ☕ 東京 Ωmega") == true)
        for ((query, expected), result) in zip(expectations, results) {
            let items = try result.jsonArray()
            XCTAssertEqual(ids(items), expected, "search \(query)")
            for item in items { assertKeys(item, Shapes.list, "search --json item") }
        }
    }
}
