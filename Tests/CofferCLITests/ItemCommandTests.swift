import Foundation
import XCTest

/// `add`, `edit`, `rm`, `show` and `history` on one vault shared by the class; every test works on
/// items it adds itself.
final class ItemCommandTests: XCTestCase {
    nonisolated(unsafe) private static var shared: TestVault?

    private func vault() throws -> TestVault {
        if let vault = Self.shared { return vault }
        let vault = try TestVault.make()
        Self.shared = vault
        return vault
    }

    override class func tearDown() {
        shared?.destroy()
        shared = nil
        super.tearDown()
    }

    // MARK: add and show

    func testAddPrintsTheIDAndShowReturnsEveryField() throws {
        let vault = try vault()
        let id = try vault.add("Example login", [
            "--username", "alice@example.com", "--password", "s3cr3t-Pa55", "--origin", "https://example.com/login",
            "--origin", "example.org", "--tag", "work", "--tag", "Shared", "--notes", "line one\nline two",
            "--totp", "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP",
        ])

        let reads = try vault.okAll([["show", id, "--json"], ["show", id, "--json", "--reveal"], ["show", id], ["show", id, "--reveal"]])
        let shown = try reads[0].jsonObject()
        assertKeys(shown, Shapes.show, "show --json")
        XCTAssertNil(shown["password"], "show --json without --reveal printed the password")
        XCTAssertNil(shown["totp"], "show --json without --reveal printed the TOTP secret")
        XCTAssertEqual(shown["id"] as? String, id)
        XCTAssertEqual(shown["title"] as? String, "Example login")
        XCTAssertEqual(shown["username"] as? String, "alice@example.com")
        XCTAssertEqual(shown["origins"] as? [String], ["https://example.com/login", "example.org"])
        XCTAssertEqual(shown["tags"] as? [String], ["work", "Shared"])
        XCTAssertEqual(shown["notes"] as? String, "line one\nline two")
        XCTAssertEqual(shown["disabled"] as? Bool, false)
        XCTAssertEqual(shown["badges"] as? [String], ["pending"])
        XCTAssertEqual((shown["history"] as? [Any])?.count, 0)
        XCTAssertTrue(shown["last_used"] is NSNull)
        let created = try XCTUnwrap(shown["created"] as? String)
        XCTAssertNotNil(ISO8601DateFormatter.withFractions.date(from: created) ?? ISO8601DateFormatter().date(from: created),
                        "created is not ISO-8601: \(created)")
        XCTAssertTrue(created.hasSuffix("Z"), "created is not UTC: \(created)")
        XCTAssertEqual(shown["modified"] as? String, created)

        let revealed = try reads[1].jsonObject()
        assertKeys(revealed, Shapes.showRevealed, "show --json --reveal")
        XCTAssertEqual(revealed["password"] as? String, "s3cr3t-Pa55")
        XCTAssertEqual(revealed["totp"] as? String, "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP")

        // The table hides secrets unless revealed.
        let table = reads[2].out
        XCTAssertTrue(table.contains("alice@example.com") && table.contains(id), table)
        XCTAssertFalse(table.contains("s3cr3t-Pa55") || table.contains("JBSWY3DPEHPK3PXP"), table)
        let revealedTable = reads[3].out
        XCTAssertTrue(revealedTable.contains("s3cr3t-Pa55") && revealedTable.contains("JBSWY3DPEHPK3PXP"), revealedTable)
    }

    func testAddJSONPrintsTheItemAsShowDoes() throws {
        let vault = try vault()
        let result = try vault.ok(["add", "--title", "JSON add", "--username", "bob", "--password", "hidden-pw", "--json"])
        let added = try result.jsonObject()
        assertKeys(added, Shapes.show, "add --json")
        XCTAssertNil(added["password"])
        let id = try XCTUnwrap(added["id"] as? String)
        assertItemID(id)
        XCTAssertEqual(try canonicalJSON(added), try canonicalJSON(try vault.show(id)))
    }

    func testNonASCIITextRoundTripsByteForByte() throws {
        let vault = try vault()
        let text = "Café ☕ 東京 Ωmega"
        // A decomposed é must stay decomposed: the vault stores what it was given.
        let decomposed = "Cafe\u{301} 👩‍💻"
        let id = try vault.add(text, ["--notes", text + "\n" + decomposed, "--username", decomposed, "--tag", "東京"])
        let shown = try vault.show(id)
        XCTAssertEqual(Array((shown["title"] as? String ?? "").utf8), Array(text.utf8))
        XCTAssertEqual(Array((shown["notes"] as? String ?? "").utf8), Array((text + "\n" + decomposed).utf8))
        XCTAssertEqual(Array((shown["username"] as? String ?? "").utf8), Array(decomposed.utf8))
        XCTAssertEqual(shown["tags"] as? [String], ["東京"])
        let listed = try XCTUnwrap(try vault.list().first { $0["id"] as? String == id })
        XCTAssertEqual(Array((listed["title"] as? String ?? "").utf8), Array(text.utf8))
        XCTAssertTrue(try vault.ok(["show", id]).out.contains(text))
    }

    func testAddGeneratesPasswordsAndPassphrases() throws {
        let vault = try vault()
        let ids = try vault.addAll([
            ["generated", "--generate"], ["generated long", "--generate", "--length", "64"],
            ["generated words", "--generate", "--words", "5"],
        ])
        let shown = try vault.showAll(ids, reveal: true)
        let (byDefault, long, words) = (shown[0], shown[1], shown[2])
        XCTAssertEqual((byDefault["password"] as? String)?.count, 20)
        XCTAssertEqual((long["password"] as? String)?.count, 64)
        let parts = (words["password"] as? String ?? "").split(separator: "-", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 5, "\(words)")
        XCTAssertTrue(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isLowercase } }, "\(parts)")
        XCTAssertNotEqual(byDefault["password"] as? String, long["password"] as? String)

        let count = try vault.itemCount()
        let refused = try vault.runAll([["add", "--title", "both", "--generate", "--password", "x"],
                                        ["add", "--title", "too short", "--generate", "--length", "3"]])
        assertError(refused[0], 2, mentions: ["--generate"])
        assertError(refused[1], 2, mentions: ["3"])
        XCTAssertEqual(try vault.itemCount(), count)
    }

    // MARK: invalid items

    func testInvalidItemsAreRefusedNamingTheFieldAndNothingIsStored() throws {
        let vault = try vault()
        let count = try vault.itemCount()
        let cases: [([String], String)] = [
            (["--title", String(repeating: "t", count: 501)], "title"),
            (["--title", "long notes", "--notes", String(repeating: "n", count: 10_001)], "notes"),
            (["--title", "long username", "--username", String(repeating: "u", count: 501)], "username"),
            (["--title", "long password", "--password", String(repeating: "p", count: 501)], "password"),
            (["--title", "long origin", "--origin", String(repeating: "o", count: 501)], "origins"),
            (["--title", "long tag", "--tag", String(repeating: "g", count: 501)], "tags"),
            (["--title", "   "], "title"),
        ]
        for ((_, field), result) in zip(cases, try vault.runAll(cases.map { ["add"] + $0.0 })) {
            assertError(result, 5, mentions: [field])
        }
        XCTAssertEqual(try vault.itemCount(), count, "an invalid item was stored")

        // The limits count characters, not bytes: 500 two-byte characters are fine.
        let id = try vault.add(String(repeating: "é", count: 500), ["--notes", String(repeating: "ü", count: 10_000)])
        XCTAssertEqual((try vault.show(id)["title"] as? String)?.count, 500)
        XCTAssertEqual(try vault.itemCount(), count + 1)

        // An edit that makes an item invalid changes nothing.
        let before = try canonicalJSON(try vault.show(id, reveal: true))
        assertError(try vault.run(["edit", id, "--title", String(repeating: "x", count: 501)]), 5, mentions: ["title"])
        XCTAssertEqual(try canonicalJSON(try vault.show(id, reveal: true)), before)
    }

    // MARK: edit

    func testEditGrowsHistoryOnlyWhenTheEntryChanges() throws {
        let vault = try vault()
        let id = try vault.add("Edited", ["--username", "u1", "--password", "p1"])

        // Title and origins are not part of the entry: no history.
        var shown = try vault.ok(["edit", id, "--title", "Edited again", "--origin", "edit.example"]).line
        XCTAssertEqual(shown, id)
        var item = try vault.show(id, reveal: true)
        XCTAssertEqual(item["title"] as? String, "Edited again")
        XCTAssertEqual(item["origins"] as? [String], ["edit.example"])
        XCTAssertEqual((item["history"] as? [Any])?.count, 0, "a title-only edit added history")
        XCTAssertGreaterThanOrEqual(item["modified"] as? String ?? "", item["created"] as? String ?? "~")

        // A password change adds one entry that turns the entry back.
        shown = try vault.ok(["edit", id, "--password", "p2"]).line
        XCTAssertEqual(shown, id)
        item = try vault.show(id, reveal: true)
        XCTAssertEqual(item["password"] as? String, "p2")
        var history = try XCTUnwrap(item["history"] as? [[String: Any]])
        XCTAssertEqual(history.count, 1)
        assertKeys(history[0], Shapes.historyEntry, "history entry")
        XCTAssertEqual(history[0]["patch"] as? [String: String], ["password": "p1"])

        // The same value again is no change.
        _ = try vault.ok(["edit", id, "--password", "p2", "--username", "u1"])
        XCTAssertEqual((try vault.show(id)["history"] as? [Any])?.count, 1, "an edit that changed nothing added history")

        // Two fields in one edit: one entry holding both.
        _ = try vault.ok(["edit", id, "--username", "u2", "--notes", "n2"])
        item = try vault.show(id, reveal: true)
        history = try XCTUnwrap(item["history"] as? [[String: Any]])
        XCTAssertEqual(history.count, 2)
        XCTAssertEqual(history[0]["patch"] as? [String: String], ["username": "u1", "notes": ""])
        XCTAssertEqual(history[1]["patch"] as? [String: String], ["password": "p1"])
        XCTAssertGreaterThanOrEqual(history[0]["created"] as? String ?? "", history[1]["created"] as? String ?? "~",
                                    "history is not newest first")

        // A tag added is a change history lists, with the tags from before (issue 43, finding 10).
        _ = try vault.ok(["edit", id, "--tag", "t"])
        item = try vault.show(id, reveal: true)
        XCTAssertEqual(item["tags"] as? [String], ["t"])
        history = try XCTUnwrap(item["history"] as? [[String: Any]])
        XCTAssertEqual(history.count, 3, "a tag change is listed once")
        XCTAssertEqual(history[0]["tags"] as? [String], [], "the tags from before")
    }

    /// `history --restore N` puts earlier entry N back as an edit: the entry it replaces goes into
    /// the history, so the restore is undone the same way (issue 43).
    func testHistoryRestorePutsAnEarlierEntryBackAsAnEdit() throws {
        let vault = try vault()
        let id = try vault.add("Restored", ["--username", "u1", "--password", "p1"])
        _ = try vault.ok(["edit", id, "--password", "p2"])
        _ = try vault.ok(["edit", id, "--password", "p3", "--username", "u3"])
        let listed = try vault.ok(["history", id]).out.split(separator: "\n")
        XCTAssertEqual(listed.count, 2, listed.joined(separator: "\n"))
        XCTAssertTrue(listed[0].hasPrefix("1. ") && listed[1].hasPrefix("2. "), "entries are numbered: \(listed)")
        XCTAssertFalse(listed.joined().contains("p1"), "a secret is masked without --reveal")

        XCTAssertEqual(try vault.ok(["history", id, "--restore", "2"]).line, id)
        var item = try vault.show(id, reveal: true)
        XCTAssertEqual(item["password"] as? String, "p1")
        XCTAssertEqual(item["username"] as? String, "u1")
        let history = try XCTUnwrap(item["history"] as? [[String: Any]])
        XCTAssertEqual(history.count, 3)
        XCTAssertEqual(history[0]["patch"] as? [String: String], ["password": "p3", "username": "u3"], "the replaced entry is kept")

        _ = try vault.ok(["history", id, "--restore", "1"])
        item = try vault.show(id, reveal: true)
        XCTAssertEqual(item["password"] as? String, "p3", "a restore is undone like an edit")

        let wrong = try vault.run(["history", id, "--restore", "9"])
        XCTAssertEqual(wrong.status, 2, wrong.err)
        XCTAssertTrue(wrong.err.contains("no earlier entry 9"), wrong.err)
        XCTAssertEqual(try vault.show(id, reveal: true)["password"] as? String, "p3", "a refused restore changes nothing")
    }

    func testEditJSONAndDisabledFlag() throws {
        let vault = try vault()
        let id = try vault.add("To disable")
        let edited = try vault.ok(["edit", id, "--disabled", "--json"]).jsonObject()
        assertKeys(edited, Shapes.show, "edit --json")
        XCTAssertEqual(edited["disabled"] as? Bool, true)
        XCTAssertEqual(Set(try vault.show(id)["badges"] as? [String] ?? []), ["pending", "disabled"])
        _ = try vault.ok(["edit", id, "--no-disabled"])
        XCTAssertEqual(try vault.show(id)["disabled"] as? Bool, false)
    }

    // MARK: rm and unknown ids

    /// `rm` puts the item in the trash (issue 43): no command finds it by its id any more, `status`
    /// still counts it (it opens no item), and `rm --purge` of another removes it for good.
    func testRemoveThenShowIsNoSuchItem() throws {
        let vault = try vault()
        let id = try vault.add("Doomed")
        let gone = try vault.add("Gone for good")
        let count = try vault.itemCount()
        let removed = try vault.ok(["rm", id])
        XCTAssertEqual(removed.line, id, "rm prints the id it removed, as edit does (issue 43, finding 12)")
        for result in try vault.runAll([["show", id], ["rm", id], ["history", id], ["edit", id, "--title", "back"]]) {
            assertError(result, 4, mentions: [id])
        }
        XCTAssertEqual(try vault.itemCount(), count, "in the trash, still a record")
        XCTAssertFalse(try vault.list().contains { $0["id"] as? String == id })
        XCTAssertEqual(try vault.ok(["trash", "--json"]).jsonArray().compactMap { $0["id"] as? String }, [id])
        XCTAssertEqual(try vault.ok(["rm", "--purge", gone]).line, gone)
        XCTAssertEqual(try vault.itemCount(), count - 1)
        assertError(try vault.run(["restore", gone]), 4, mentions: [gone])
        XCTAssertEqual(try vault.ok(["restore", "Doom"]).line, id, "restore takes a part of a title, among the trash")
        XCTAssertEqual(try vault.show(id)["title"] as? String, "Doomed")
    }

    func testUnknownIDsAreExit4() throws {
        let vault = try vault()
        let unknown = UUID().uuidString.lowercased()
        let commands = [["show", unknown], ["show", unknown, "--json", "--reveal"], ["edit", unknown, "--title", "x"],
                        ["rm", unknown], ["history", unknown]]
        for result in try vault.runAll(commands) {
            assertError(result, 4, mentions: [unknown])
        }
    }

    // MARK: history

    func testHistoryWalksBackAndMasksSecretsUnlessRevealed() throws {
        let vault = try vault()
        let id = try vault.add("History", ["--username", "h-user", "--password", "first-pw"])
        _ = try vault.ok(["edit", id, "--password", "second-pw"])
        _ = try vault.ok(["edit", id, "--password", "third-pw", "--totp", "JBSWY3DPEHPK3PXP"])
        _ = try vault.ok(["edit", id, "--username", "h-user-2", "--totp", "KRSXG5CTMVRXEZLU"])

        let reads = try vault.okAll([["history", id, "--json"], ["history", id], ["history", id, "--json", "--reveal"],
                                     ["history", id, "--reveal"], ["show", id, "--json"], ["show", id, "--json", "--reveal"]])
        let masked = try reads[0].jsonArray()
        XCTAssertEqual(masked.count, 3)
        for entry in masked { assertKeys(entry, Shapes.historyEntry, "history --json entry") }
        XCTAssertEqual(masked[0]["patch"] as? [String: String], ["username": "h-user", "totp": "••••••••"])
        let middle = try XCTUnwrap(masked[1]["patch"] as? [String: Any])
        XCTAssertEqual(middle["password"] as? String, "••••••••")
        XCTAssertTrue(middle["totp"] is NSNull, "a patch that removes a TOTP is not a secret: \(middle)")
        XCTAssertEqual(masked[2]["patch"] as? [String: String], ["password": "••••••••"])
        let maskedText = reads[1].out
        for secret in ["first-pw", "second-pw", "JBSWY3DPEHPK3PXP"] {
            XCTAssertFalse(maskedText.contains(secret), "history printed \(secret) without --reveal:\n\(maskedText)")
        }

        let revealed = try reads[2].jsonArray()
        XCTAssertEqual(revealed.count, 3)
        XCTAssertEqual(revealed[0]["patch"] as? [String: String], ["username": "h-user", "totp": "JBSWY3DPEHPK3PXP"])
        XCTAssertEqual((revealed[1]["patch"] as? [String: Any])?["password"] as? String, "second-pw")
        XCTAssertEqual(revealed[2]["patch"] as? [String: String], ["password": "first-pw"])
        let dates = revealed.compactMap { $0["created"] as? String }
        XCTAssertEqual(dates, dates.sorted(by: >), "history is not newest first")

        // The table walks back one version per line, newest first.
        let lines = reads[3].out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, "\(lines)")
        if lines.count == 3 {
            XCTAssertTrue(lines[0].contains("username: h-user") && lines[0].contains("totp: JBSWY3DPEHPK3PXP"), lines[0])
            XCTAssertTrue(lines[1].contains("password: second-pw"), lines[1])
            XCTAssertTrue(lines[2].contains("password: first-pw"), lines[2])
        }

        // The same history is in show --json (masked) and show --json --reveal.
        XCTAssertEqual(try canonicalJSON(try reads[4].jsonObject()["history"] as Any), try canonicalJSON(masked))
        XCTAssertEqual(try canonicalJSON(try reads[5].jsonObject()["history"] as Any), try canonicalJSON(revealed))

        let fresh = try vault.add("No history")
        let empty = try vault.okAll([["history", fresh, "--json"], ["history", fresh]])
        XCTAssertEqual(try empty[0].jsonArray().count, 0)
        XCTAssertFalse(empty[1].line.isEmpty)
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
