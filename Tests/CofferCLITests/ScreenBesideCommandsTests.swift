import Foundation
import GRDB
import XCTest

/// Issue 10's three reproductions with the real binary: the screen in tmux, `coffer` commands as
/// other processes on the same vault.
final class ScreenBesideCommandsTests: XCTestCase {
    /// First run in the screen, then writes alternating between the screen and `coffer add`:
    /// every acknowledged write (an exit 0, a "Saved") is there afterwards, seen by both.
    func testFirstRunScreenAndCommandsLoseNoWrite() throws {
        let vault = try TestVault()
        defer { vault.destroy() }
        let screen = try ScreenSession(vault: vault.path, home: vault.root)
        try screen.createVault(passphrase: vault.passphrase)
        var expected: Set<String> = []
        func onScreen(_ title: String) throws {
            if try screen.addItem(title: title) { expected.insert(title) }
        }
        func fromCommand(_ title: String) throws {
            _ = try vault.add(title)
            expected.insert(title)
        }
        try onScreen("screen-1")
        for index in 1...3 { try fromCommand("cli-\(index)") }
        try onScreen("screen-2")
        try fromCommand("cli-4")
        try onScreen("screen-3")

        XCTAssertEqual(Set(try vault.list().compactMap { $0["title"] as? String }), expected, "an acknowledged write is missing")
        screen.expect("\(expected.count) items")
        for title in expected { XCTAssertTrue(screen.screen.contains(title), "the screen does not show \(title)") }
        XCTAssertEqual(try integrityCheck(vault.path), "ok")
    }

    /// Issue 30: `Title ↵ Esc n ↵ screen-3 ↵` typed in one go (one send-keys) while `coffer add`
    /// writes beside the screen. The keys after ↵ wait for the save and act on the page it leads
    /// to: Esc closes the form after the save, n asks the kind and ↵ opens a login's form, and the
    /// second title is a second item. Before the fix, Esc asked "Discard your changes?" during the save, the question stayed
    /// over the saved item's detail, and `n s c r e` answered it, synced, copied, revealed and
    /// opened the item to rename it "screen-2en-3".
    func testKeysTypedDuringASaveActOnThePageAfterIt() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let screen = try ScreenSession(vault: vault.path, home: vault.root)
        try screen.unlock(passphrase: vault.passphrase)
        let writer = CommandWriter(vault: vault, prefix: "cli")
        var typed: [String] = []
        for round in 1...3 {
            let first = "screen-\(2 * round)", second = "screen-\(2 * round + 1)"
            try screen.press("n")
            screen.expect("New item")
            try screen.press(first, "Enter", "Escape", "n", second, "Enter")
            typed += [first, second]
            screen.expect("Saved “\(second)”")
            try screen.press("Escape")
            screen.expect("/ filter")
        }
        let written = writer.stop()
        XCTAssertFalse(written.isEmpty, "the command beside the screen wrote nothing")
        let titles = try vault.list().compactMap { $0["title"] as? String }
        XCTAssertEqual(titles.sorted(), (typed + written).sorted(), "every title as typed, each once, nothing renamed")
        XCTAssertFalse(screen.screen.contains("Discard"), screen.screen)
    }

    /// A form opened before a command changed the item saves only what it changed: the
    /// command's username and notes stay.
    func testAStaleFormEditKeepsTheCommandsChange() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let id = try vault.add("Mail", ["--username", "ann", "--password", "pw-1", "--notes", "old notes"])
        let screen = try ScreenSession(vault: vault.path, home: vault.root)
        try screen.unlock(passphrase: vault.passphrase)
        screen.expect("Mail")
        try screen.press("Enter")
        screen.expect("old notes")
        try screen.press("e")
        screen.expect("Edit item")
        try vault.ok(["edit", id, "--username", "from-cli", "--notes", "cli-notes"])
        try screen.press("End")
        try screen.type(" (screen)")
        try screen.press("Enter")
        screen.expect("merged with a change made elsewhere")
        let shown = try vault.show(id, reveal: true)
        XCTAssertEqual(shown["title"] as? String, "Mail (screen)")
        XCTAssertEqual(shown["username"] as? String, "from-cli")
        XCTAssertEqual(shown["notes"] as? String, "cli-notes")
        XCTAssertEqual(shown["password"] as? String, "pw-1")
        screen.expect("from-cli")  // the detail page shows the merged item
    }

    /// The screen follows other processes' commits within about a second, locked and unlocked,
    /// keeping an open filter.
    func testTheScreenShowsWhatCommandsDid() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        _ = try vault.add("first")
        let screen = try ScreenSession(vault: vault.path, home: vault.root)
        screen.expect("Items             1")
        _ = try vault.add("second")
        screen.expect("Items             2", timeout: 3)
        try screen.unlock(passphrase: vault.passphrase)
        screen.expect("2 items")
        try screen.press("/")
        try screen.type("i")
        let third = try vault.add("third")
        screen.expect("third", timeout: 3)
        screen.expect("2 of 3", timeout: 3)  // "second" has no i
        try vault.ok(["edit", third, "--title", "third (renamed)"])
        screen.expect("third (renamed)", timeout: 3)
        try vault.ok(["rm", third])
        screen.expectGone("third (renamed)", timeout: 3)
        screen.expect("/i · 1 of 2", timeout: 3)  // the filter stays
    }
}

extension ScreenBesideCommandsTests {
    /// Issue 30: a card made on the screen — its kind's fields, the secret ones typed masked, and
    /// a custom field added, given a label and made hidden — is the card the command line shows,
    /// with a real id for the custom field.
    func testACardMadeOnTheScreenIsTheCardTheCommandShows() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let screen = try ScreenSession(vault: vault.path, home: vault.root)
        try screen.unlock(passphrase: vault.passphrase)
        try screen.press("N")
        screen.expect("which kind?")
        try screen.press("c")
        screen.expect("New item · Card")
        for (index, text) in ["Visa", "Alice Smith", "4111 1111 1111 1111", "12", "2029", "737", "4321"].enumerated() {
            if index > 0 { try screen.press("Tab") }
            try screen.type(text)
        }
        try screen.press("C-n")
        try screen.type("Bank line")
        try screen.press("Tab")
        try screen.type("+44 20 7946 0000")
        try screen.press("C-t")
        screen.expect("hidden")
        for secret in ["4111", "737", "4321", "+44 20"] {
            XCTAssertFalse(screen.screen.contains(secret), "\(secret) shows as typed:\n\(screen.screen)")
        }
        try screen.press("Enter")
        screen.expect("Saved “Visa”")
        screen.expect("Bank line")
        XCTAssertFalse(screen.screen.contains("+44 20"), "the hidden field is masked on the detail:\n\(screen.screen)")

        let listed = try vault.list(["--kind", "card"])
        XCTAssertEqual(listed.compactMap { $0["title"] as? String }, ["Visa"])
        let id = try XCTUnwrap(listed.first?["id"] as? String)
        let shown = try vault.show(id, reveal: true)
        XCTAssertEqual(shown["kind"] as? String, "card")
        XCTAssertEqual(shown["fields"] as? [String: String], [
            "cardholder": "Alice Smith", "number": "4111 1111 1111 1111", "expiry_month": "12", "expiry_year": "2029",
            "code": "737", "pin": "4321",
        ])
        let custom = try XCTUnwrap(shown["custom"] as? [[String: String]])
        XCTAssertEqual(custom.map { [$0["label"], $0["type"], $0["value"]] }, [["Bank line", "hidden", "+44 20 7946 0000"]])
        let fieldID = try XCTUnwrap(custom.first?["id"])
        XCTAssertFalse(fieldID.hasPrefix("new-field"), "the form's placeholder id was stored: \(fieldID)")
        XCTAssertNotNil(UUID(uuidString: fieldID), "not a random id: \(fieldID)")
        let masked = try vault.show(id)
        XCTAssertNil((masked["custom"] as? [[String: String]])?.first?["value"], "a hidden value without --reveal")
    }

    /// Issue 30: `coffer edit` adds a hidden custom field while the screen shows the card: the
    /// detail shows it (masked) within a second, the cursor reaches it and Enter copies it. A second
    /// `edit` adds a field while the screen's form for the card is open: saving the form merges
    /// into that version, field by field, keeping both fields.
    func testACustomFieldAddedByACommandShowsOnTheScreensDetailAndSurvivesItsForm() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let id = try vault.add("Visa", ["--kind", "card", "--field", "cardholder=Alice Smith",
                                        "--field", "number=4111 1111 1111 1111"])
        let screen = try ScreenSession(vault: vault.path, home: vault.root)
        try screen.unlock(passphrase: vault.passphrase)
        screen.expect("Visa")
        try screen.press("Enter")
        screen.expect("Cardholder")
        XCTAssertFalse(screen.screen.contains("Bank line"))

        try vault.ok(["edit", id, "--hidden-field", "Bank line=+44 20 7946 0000"])
        screen.expect("Bank line", timeout: 3)
        XCTAssertFalse(screen.screen.contains("+44 20"), "shown unmasked:\n\(screen.screen)")
        // Cardholder, number, month, year, code, PIN, then the new field.
        for _ in 0..<6 { try screen.press("j") }
        try screen.press("Enter")
        screen.expect("Copied the field “Bank line” of “Visa”")
        XCTAssertEqual(screen.pasteBuffer, "+44 20 7946 0000")

        try screen.press("e")
        screen.expect("Edit item · Card")
        try vault.ok(["edit", id, "--field", "Branch=Elm St"])
        try screen.press("End")
        try screen.type(" (screen)")
        try screen.press("Enter")
        screen.expect("merged with a change made elsewhere")
        screen.expect("Branch")
        let shown = try vault.show(id, reveal: true)
        XCTAssertEqual(shown["title"] as? String, "Visa (screen)")
        let custom = try XCTUnwrap(shown["custom"] as? [[String: String]])
        XCTAssertEqual(custom.map { $0["label"] }, ["Bank line", "Branch"])
        XCTAssertEqual(custom.map { $0["value"] }, ["+44 20 7946 0000", "Elm St"])
        XCTAssertEqual((shown["fields"] as? [String: String])?["number"], "4111 1111 1111 1111")
    }
}

/// `coffer add --title PREFIX-N` again and again on a thread of its own until stopped: a command
/// writing to the vault beside the screen.
final class CommandWriter: @unchecked Sendable {
    private let lock = NSLock()
    private var isStopped = false
    private var titles: [String] = []
    private let finished = DispatchSemaphore(value: 0)

    init(vault: TestVault, prefix: String) {
        Thread.detachNewThread { [self] in
            var count = 0
            while !lock.withLock({ isStopped }) {
                count += 1
                let title = "\(prefix)-\(count)"
                if let result = try? vault.run(["add", "--title", title]), result.status == 0 {
                    lock.withLock { titles.append(title) }
                }
            }
            finished.signal()
        }
    }

    /// Stops after the command running now; returns the titles whose `add` exited 0.
    func stop() -> [String] {
        lock.withLock { isStopped = true }
        finished.wait()
        return lock.withLock { titles }
    }
}

/// `PRAGMA integrity_check` of a vault file, read-only, beside whatever else has it open.
func integrityCheck(_ path: String) throws -> String {
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(10)
    return try DatabaseQueue(path: path, configuration: configuration).read { db in
        try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "no answer"
    }
}
