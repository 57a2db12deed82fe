import CofferTestSupport
import Foundation
import XCTest

/// Issue 30: each kind made on the screen (tmux) and on the command line, synced through the real
/// Kinto to a second device, is the same item there: `show --json --reveal` on both devices
/// prints the same fields, custom fields and files.
final class ScreenKindsSyncTests: XCTestCase {
    private var server: URL!
    private var vaults: [TestVault] = []

    override func setUpWithError() throws {
        server = try SyncCommandServer.require()
    }

    override func tearDown() {
        for vault in vaults { vault.destroy() }
        super.tearDown()
    }

    /// Tab to the field `steps` fields on, then types `text`.
    private func typeAfter(_ steps: Int, _ text: String, on screen: ScreenSession) throws {
        for _ in 0..<steps { try screen.press("Tab") }
        try screen.type(text)
    }

    /// `N`, the kind's key, and the new item's form of that kind.
    private func newItem(_ key: String, form: String, on screen: ScreenSession) throws {
        try screen.press("N")
        screen.expect("which kind?")
        try screen.press(key)
        screen.expect("New item · \(form)")
    }

    /// Enter saves; the detail says so; Esc goes back to the list.
    private func save(_ title: String, on screen: ScreenSession) throws {
        try screen.press("Enter")
        screen.expect("Saved “\(title)”")
        try screen.press("Escape")
    }

    func testEveryKindMadeOnTheScreenOrTheCommandLineIsTheSameItemOnTheOtherDevice() throws {
        let a = try TestVault.make()
        vaults.append(a)
        let account = ("kinds-\(UUID().uuidString.lowercased())", "pw-\(UUID().uuidString)")
        let passwordFile = try a.writeWorkFile("account-password", account.1 + "\n")
        assertOK(try a.run(["account", "signup", "--server", server.absoluteString, "--user", account.0,
                            "--password-file", passwordFile], unlock: false))

        let screen = try ScreenSession(vault: a.path, home: a.root)
        try screen.unlock(passphrase: a.passphrase)
        // A secure note: title, then origins, tags and the notes.
        try newItem("n", form: "Secure note", on: screen)
        try screen.type("Alarm code")
        try typeAfter(3, "Front door: see the card", on: screen)
        try save("Alarm code", on: screen)
        // An identity: first, middle and last name, email; a passport number (a secret field).
        try newItem("i", form: "Identity", on: screen)
        try screen.type("Me")
        try typeAfter(1, "Ann", on: screen)
        try typeAfter(2, "Example", on: screen)
        try typeAfter(1, "ann@example.org", on: screen)
        try typeAfter(9, "X1234567", on: screen)
        try save("Me", on: screen)
        // A card with a hidden custom field.
        try newItem("c", form: "Card", on: screen)
        for (index, text) in ["Visa", "Ann Example", "4111111111111111", "7", "2030", "123", "9876"].enumerated() {
            try typeAfter(index > 0 ? 1 : 0, text, on: screen)
        }
        try screen.press("C-n")
        try screen.type("Bank line")
        try screen.press("Tab")
        try screen.type("+33 1 23 45 67 89")
        try screen.press("C-t")
        screen.expect("hidden")
        try save("Visa", on: screen)

        // Beside the screen, the command line adds a login with custom fields and a file.
        let login = try a.ok(["add", "--title", "Bank", "--username", "ann", "--password", "S3cret!pw",
                              "--field", "Customer number=C-1042", "--hidden-field", "Recovery PIN=2468"]).line
        let file = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        assertOK(try a.run(["attach", login, try a.writeWorkFile("statement.pdf", file)]))

        // The screen's own sync sends all of it.
        try screen.press("s")
        screen.expect("0 pending", timeout: 30)
        try screen.press("q")

        let b = try TestVault(passphrase: a.passphrase)
        vaults.append(b)
        assertOK(try b.run(["join", "--server", server.absoluteString, "--user", account.0,
                            "--password-file", try b.writeWorkFile("account-password", account.1 + "\n")]))
        let titles = ["Alarm code", "Bank", "Me", "Visa"]
        XCTAssertEqual(try b.list().compactMap { $0["title"] as? String }.sorted(), titles)
        for title in titles {
            var onA = try a.show(title, reveal: true), onB = try b.show(title, reveal: true)
            // Badges say what each device still owes the server: not part of the item.
            onA["badges"] = nil
            onB["badges"] = nil
            XCTAssertEqual(NSDictionary(dictionary: onA), NSDictionary(dictionary: onB), "\(title) differs:\nA \(onA)\nB \(onB)")
        }
        let kinds = try titles.map { try b.show($0)["kind"] as? String }
        XCTAssertEqual(kinds, ["note", "login", "identity", "card"])
        XCTAssertEqual((try b.show("Me", reveal: true)["fields"] as? [String: String]),
                       ["first_name": "Ann", "last_name": "Example", "email": "ann@example.org", "passport": "X1234567"])
        XCTAssertEqual((try b.show("Visa", reveal: true)["custom"] as? [[String: Any]])?.first?["type"] as? String, "hidden")
        let saved = b.work.appendingPathComponent("statement-b.pdf")
        assertOK(try b.run(["attachment", "Bank", "statement.pdf", "--output", saved.path]))
        XCTAssertEqual(try Data(contentsOf: saved), file, "the file, byte for byte")
    }
}
