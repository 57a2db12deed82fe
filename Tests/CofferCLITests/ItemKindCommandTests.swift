import CofferTestSupport
import Foundation
import XCTest

/// Issue 30 on the command line, with the built binary: every kind made with `add --kind`,
/// its fields and custom fields shown (secrets masked without `--reveal`), read one by one with
/// `show --field`, edited, listed by kind, searched, exported and imported back; the same
/// through a running agent beside other commands.
final class ItemKindCommandTests: XCTestCase {
    private var vaults: [TestVault] = []

    override func tearDown() {
        for vault in vaults { vault.destroy() }
        super.tearDown()
    }

    private func makeVault() throws -> TestVault {
        let vault = try TestVault.make()
        vaults.append(vault)
        return vault
    }

    /// A JSON value as sorted text, to compare members whatever their order.
    private func canonical(_ value: Any?) throws -> String {
        guard let value else { return "absent" }
        return String(decoding: try JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]), as: UTF8.self)
    }

    private func addCard(_ vault: TestVault) throws -> String {
        // The number from stdin (`-`): not in the process list.
        let result = try vault.ok(["add", "--kind", "card", "--title", "Visa", "--field", "cardholder=A. Person",
                                   "--field", "Number=-", "--field", "Expiry month=7", "--field", "expiry_year=2031",
                                   "--hidden-field", "PIN hint=birthday", "--field", "Bank=ACME"],
                                  stdin: utf8("4111111111111111\n"))
        assertItemID(result.line)
        return result.line
    }

    func testACardWithCustomFieldsOnTheCommandLine() throws {
        let vault = try makeVault()
        let id = try addCard(vault)

        let shown = try vault.show(id)
        XCTAssertEqual(shown["kind"] as? String, "card")
        XCTAssertEqual(shown["fields"] as? [String: String],
                       ["cardholder": "A. Person", "expiry_month": "7", "expiry_year": "2031"], "the number is left out")
        let custom = try XCTUnwrap(shown["custom"] as? [[String: Any]])
        XCTAssertEqual(custom.map { $0["label"] as? String }, ["PIN hint", "Bank"], "in the order typed, --field and --hidden-field alike")
        XCTAssertNil(custom[0]["value"], "a hidden field's value is left out without --reveal")
        XCTAssertEqual(custom[1]["value"] as? String, "ACME")
        let revealed = try vault.show(id, reveal: true)
        XCTAssertEqual((revealed["fields"] as? [String: String])?["number"], "4111111111111111")
        XCTAssertEqual((revealed["custom"] as? [[String: Any]])?.first?["value"] as? String, "birthday")

        let table = try vault.ok(["show", id]).out
        XCTAssertTrue(table.contains("Card"), table)
        XCTAssertTrue(table.contains("A. Person"), table)
        XCTAssertFalse(table.contains("4111"), "the number is masked: \(table)")
        XCTAssertFalse(table.contains("birthday"), "the hidden field is masked: \(table)")
        XCTAssertTrue(try vault.ok(["show", id, "--reveal"]).out.contains("4111111111111111"))

        XCTAssertEqual(try vault.ok(["show", id, "--field", "number"]).out, "4111111111111111\n")
        XCTAssertEqual(try vault.ok(["show", id, "--field", "pin hint"]).out, "birthday\n")
        XCTAssertEqual(try vault.ok(["show", id, "--field", "Cardholder"]).out, "A. Person\n")
        assertError(try vault.run(["show", id, "--field", "colour"]), 2, mentions: ["no field", "colour", "cardholder", "PIN hint"])

        try vault.ok(["edit", id, "--field", "bank=ACME Bank", "--remove-field", "PIN hint", "--field", "pin=1234"])
        let edited = try vault.show(id, reveal: true)
        XCTAssertEqual((edited["custom"] as? [[String: Any]])?.map { $0["label"] as? String }, ["Bank"])
        XCTAssertEqual((edited["custom"] as? [[String: Any]])?.first?["value"] as? String, "ACME Bank")
        XCTAssertEqual((edited["fields"] as? [String: String])?["pin"], "1234")
        XCTAssertEqual((edited["history"] as? [Any])?.count, 1, "the edit left one history entry")
        let masked = try vault.show(id)
        let patch = try XCTUnwrap(((masked["history"] as? [[String: Any]])?.first?["patch"]) as? [String: Any])
        XCTAssertFalse(String(describing: patch).contains("birthday"), "history masks custom fields: \(patch)")

        // Refusals, each one sentence, nothing stored.
        assertError(try vault.run(["add", "--kind", "card", "--title", "X", "--password", "p"]), 2, mentions: ["login"])
        assertError(try vault.run(["add", "--kind", "wallet", "--title", "X"]), 2, mentions: ["Unknown kind"])
        assertError(try vault.run(["add", "--kind", "card", "--title", "X", "--field", "expiry_month=13"]), 5,
                    mentions: ["month"])
        assertError(try vault.run(["add", "--title", "X", "--field", "=v"]), 2, mentions: ["LABEL=VALUE"])
        XCTAssertEqual(try vault.itemCount(), 1)
    }

    func testKindsAreListedSearchedExportedAndImportedBack() throws {
        let vault = try makeVault()
        let card = try addCard(vault)
        let identity = try vault.add("Me", ["--kind", "identity", "--field", "first_name=Ann", "--field", "Email=ann@example.com",
                                            "--hidden-field", "passport=X1234567"])
        let note = try vault.add("Safe", ["--kind", "note", "--notes", "12-34-56", "--field", "Location=cellar"])
        let login = try vault.add("Forge", ["--username", "smith", "--password", "pw"])

        XCTAssertEqual(try vault.list(["--kind", "card"]).compactMap { $0["id"] as? String }, [card])
        XCTAssertEqual(try vault.list(["--kind", "note"]).compactMap { $0["id"] as? String }, [note])
        XCTAssertEqual(Set(try vault.list().compactMap { $0["kind"] as? String }), ["card", "identity", "note", "login"])
        XCTAssertEqual(try vault.search("ann@example").compactMap { $0["id"] as? String }, [identity], "shown fields are searched")
        XCTAssertEqual(try vault.search("cellar").compactMap { $0["id"] as? String }, [note], "custom values are searched")
        XCTAssertEqual(try vault.search("pin hint").compactMap { $0["id"] as? String }, [card], "custom labels are searched")
        XCTAssertEqual(try vault.search("X1234567").count, 0, "secrets are never searched")
        XCTAssertEqual(try vault.search("4111").count, 0, "a card number is never searched")

        let exported = try vault.ok(["export", "--format", "json", "-"]).out
        let other = try makeVault()
        let file = try other.writeWorkFile("export.json", exported)
        try other.ok(["import", "--format", "json", file])
        for id in [card, identity, note, login] {
            let before = try vault.show(id, reveal: true)
            let after = try other.show(id, reveal: true)
            for key in ["kind", "title", "fields", "custom", "notes", "username", "password"] {
                XCTAssertEqual(try canonical(after[key]), try canonical(before[key]), "\(key) of \(id)")
            }
        }
    }

    /// Through a running agent, beside other commands writing the same vault.
    func testKindsThroughTheAgentBesideOtherCommands() throws {
        let vault = try makeVault()
        try vault.ok(["unlock"])
        defer { _ = try? vault.run(["lock"], unlock: false) }
        let results = try vault.runAll((1...4).map { ["add", "--kind", "card", "--title", "Card \($0)", "--field", "number=41110000000\($0)",
                                                      "--hidden-field", "Note \($0)=secret \($0)"] }, unlock: false)
        for result in results { assertOK(result) }
        for (index, result) in results.enumerated() {
            let id = result.line
            XCTAssertEqual(try vault.run(["show", id, "--field", "number"], unlock: false).out, "41110000000\(index + 1)\n")
            XCTAssertEqual(try vault.run(["show", id, "--field", "note \(index + 1)"], unlock: false).out, "secret \(index + 1)\n")
        }
        XCTAssertEqual(try vault.run(["list", "--kind", "card", "--json"], unlock: false).jsonArray().count, 4)
    }
}
