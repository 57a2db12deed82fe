import Foundation
import CofferTestSupport
import XCTest

/// Issue 28, finding 3: an item's fields (imported from another manager's file) never drive the
/// terminal. Each command that prints them for people shows them as visible escapes; `--json`
/// escapes them and parses back to the exact values; `show --field` still gives the raw bytes.
final class TerminalEscapeTests: XCTestCase {
    private var vault: TestVault!
    private let title = "https://" + Hostile.text("url")
    private let username = Hostile.text("user")
    private let password = Hostile.text("pw")

    override func tearDown() {
        vault?.destroy()
        super.tearDown()
    }

    /// A Firefox export with a control of each kind in the URL (the title: it is no host), the
    /// username, the password, the realm (notes) and a column name (a note's label); a second
    /// login to the same URL, so that its title names two items.
    private var firefoxCSV: String {
        let column = Hostile.text("column")
        return """
            "url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed","timePasswordChanged","\(column)"
            "\(title)","\(username)","\(password)","\(Hostile.text("realm"))","\(title)","{1}","1600000000000","","1600000000000","\(Hostile.text("extra"))"
            "\(title)","second","another password 2","","\(title)","{2}","1600000000000","","1600000000000",""

            """
    }

    /// Imports the hostile file, whose own name holds escapes too; returns the first item's id.
    private func importHostileFile() throws -> String {
        vault = try TestVault.make()
        let path = try vault.writeWorkFile("logins\u{1B}]0;FILE\u{07}.csv", firefoxCSV)
        let dryRun = try vault.ok(["import", "--format", "firefox", "--dry-run", path])
        assertTerminalSafe(dryRun, shows: [Hostile.shown("url"), "logins\\e]0;FILE\\a.csv"])
        let imported = try vault.ok(["import", "--format", "firefox", path])
        assertTerminalSafe(imported, shows: ["logins\\e]0;FILE\\a.csv"])
        let listed = try vault.list()
        XCTAssertEqual(listed.count, 2)
        return try XCTUnwrap(listed.first { $0["username"] as? String == username }?["id"] as? String)
    }

    func testListSearchShowHistoryAndHealthShowEscapesNotControls() throws {
        let id = try importHostileFile()
        assertTerminalSafe(try vault.ok(["list"]), shows: [Hostile.shown("url"), Hostile.shown("user")])
        assertTerminalSafe(try vault.ok(["search", "pwned-url"]), shows: [Hostile.shown("url"), Hostile.shown("user")])
        assertTerminalSafe(try vault.ok(["show", id, "--reveal"]),
                           shows: [Hostile.shown("url"), Hostile.shown("user"), Hostile.shown("pw"),
                                   Hostile.shown("realm"), Hostile.shown("column"), Hostile.shown("extra")])
        _ = try vault.ok(["edit", id, "--username", "changed", "--password", "a new password"])
        assertTerminalSafe(try vault.ok(["history", id, "--reveal"]), shows: [Hostile.shown("user"), Hostile.shown("pw")])
        assertTerminalSafe(try vault.ok(["health"]), shows: [Hostile.shown("url")])
    }

    /// AMBIGUOUS lists the candidates' titles and usernames; a missing name is echoed: both escaped.
    func testErrorsThatEchoNamesShowEscapes() throws {
        _ = try importHostileFile()
        let ambiguous = try vault.run(["show", title])
        XCTAssertEqual(ambiguous.status, 6, ambiguous.summary)
        assertTerminalSafe(ambiguous, shows: [Hostile.shown("url"), Hostile.shown("user")])
        let missing = try vault.run(["show", "nothing\u{1B}]0;GONE\u{07}\u{9B}2J\u{202E}"])
        assertError(missing, 4)
        assertTerminalSafe(missing, shows: ["nothing\\e]0;GONE\\a\\u009B2J\\u202E"])
    }

    /// `--json` escapes C1, DEL and bidi controls too, and reads back to the very values.
    func testJSONEscapesEveryControlAndRoundTrips() throws {
        let id = try importHostileFile()
        _ = try vault.ok(["edit", id, "--username", "x\u{7F}\u{85}\u{200E}\u{2066}y"])
        for arguments in [["list", "--json"], ["search", "pwned-url", "--json"], ["show", id, "--json", "--reveal"],
                          ["history", id, "--json", "--reveal"], ["health", "--json"]] {
            let result = try vault.ok(arguments)
            assertTerminalSafe(result)
            XCTAssertTrue(result.out.contains("\\u009B") && result.out.contains("\\u202E"), result.summary.debugDescription)
        }
        let shown = try vault.show(id, reveal: true)
        XCTAssertEqual(shown["title"] as? String, title)
        XCTAssertEqual(shown["username"] as? String, "x\u{7F}\u{85}\u{200E}\u{2066}y")
        XCTAssertEqual(shown["password"] as? String, password)
        XCTAssertEqual(shown["origins"] as? [String], [title])
        XCTAssertTrue((shown["notes"] as? String ?? "").contains(Hostile.text("realm")), "\(shown)")
        let history = try vault.ok(["history", id, "--json", "--reveal"]).jsonArray()
        let patch = history.first?["patch"] as? [String: Any]
        XCTAssertEqual(patch?["username"] as? String, username)
    }

    /// Scripts still get the bytes: `show --field` and `export` are not for people.
    func testFieldAndExportStayRaw() throws {
        let id = try importHostileFile()
        XCTAssertEqual(try vault.ok(["show", id, "--field", "title"]).stdout, Data((title + "\n").utf8))
        XCTAssertEqual(try vault.ok(["show", id, "--field", "username"]).stdout, Data((username + "\n").utf8))
        let csv = try vault.ok(["export", "--format", "csv", "-"])
        XCTAssertTrue(csv.out.contains(username), csv.summary.debugDescription)
        let export = try vault.ok(["export", "-"])
        XCTAssertTrue(export.out.contains("\u{9B}31m\u{202E}moc."), "C1 and bidi stay as they are in the export")
        let exported = try XCTUnwrap(try export.jsonArray().first { $0["id"] as? String == id })
        XCTAssertEqual(exported["password"] as? String, password)
    }

    /// A real `pass` store whose entry's path holds escapes: the path becomes the title and its
    /// folder a tag, shown escaped by the import, `list` and `show`.
    func testPassEntryNamesShowEscapes() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-pass-\(UUID().uuidString)")
        let gnupg = root.appendingPathComponent("gnupg")
        let store = root.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: gnupg, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(gnupg.path, 0o700), 0)
        defer {
            _ = try? ExternalTool.run("/usr/bin/gpgconf", ["--kill", "all"], environment: ["GNUPGHOME": gnupg.path])
            try? FileManager.default.removeItem(at: root)
        }
        let environment = ["GNUPGHOME": gnupg.path, "PASSWORD_STORE_DIR": store.path]
        func tool(_ path: String, _ arguments: [String], _ input: String = "") throws {
            let result = try ExternalTool.run(path, arguments, stdin: Data(input.utf8), environment: environment)
            XCTAssertEqual(result.status, 0, "\(path) \(arguments): \(result.errorText)")
        }
        let entry = "sh\u{1B}[2Jop/ent\u{1B}]0;PASS\u{07}\u{202E}ry"
        try tool("/usr/bin/gpg", ["--batch", "--passphrase", "", "--quick-gen-key", "coffer-test@example.org", "default", "default", "never"])
        try tool("/usr/bin/pass", ["init", "coffer-test@example.org"])
        try tool("/usr/bin/pass", ["insert", "-m", entry], "a password\nlogin: \(Hostile.text("login"))\n")

        vault = try TestVault.make()
        let global = ["--vault", vault.path, "--passphrase-file", vault.passphraseFile]
        let dryRun = try CofferProcess.run(global + ["import", "--format", "pass", "--dry-run", store.path],
                                           home: vault.root, environment: environment)
        assertOK(dryRun)
        assertTerminalSafe(dryRun, shows: ["sh\\e[2Jop/ent\\e]0;PASS\\a\\u202Ery"])
        let imported = try CofferProcess.run(global + ["import", "--format", "pass", store.path],
                                             home: vault.root, environment: environment)
        assertOK(imported)
        assertTerminalSafe(imported)
        let listed = try vault.ok(["list"])
        assertTerminalSafe(listed, shows: ["sh\\e[2Jop/ent\\e]0;PASS\\a\\u202Ery", Hostile.shown("login")])
        XCTAssertTrue(listed.out.contains("  sh\\e[2Jop  "), "the tag column: \(listed.summary.debugDescription)")
        assertTerminalSafe(try vault.ok(["show", "ent"]), shows: ["sh\\e[2Jop/ent", Hostile.shown("login")])
        XCTAssertEqual(try vault.list().first?["title"] as? String, entry)
    }

    /// The finding as it was seen: `coffer list` in tmux with `set-clipboard on` must leave the
    /// clipboard, the window title and the screen alone, and show the escapes instead.
    func testListInTmuxLeavesClipboardTitleAndScreenAlone() throws {
        _ = try importHostileFile()
        let binary = try CofferBinary.require()
        let tmux = try Tmux(command: "env -u DISPLAY LANG=C.UTF-8 TERM=tmux-256color sh", width: 200, height: 30)
        try tmux.type("echo before-list; '\(binary)' --vault '\(vault.path)' --passphrase-file '\(vault.passphraseFile)' list; "
            + "echo list-exit-$?")
        try tmux.send("Enter")
        let (found, screen) = tmux.wait(for: "list-exit-0")
        XCTAssertTrue(found, screen)
        XCTAssertTrue(screen.contains("before-list"), "the screen was cleared: \(screen)")
        XCTAssertTrue(screen.contains("\\e]52;c;UFdORUQ="), screen)
        XCTAssertFalse(tmux.pasteBuffer.contains("PWNED"), "the clipboard was replaced: \(tmux.pasteBuffer)")
        let title = try tmux.run(["display-message", "-p", "-t", tmux.session, "#{pane_title}"])
        XCTAssertFalse(title.contains("PWNED"), "the window title was set: \(title)")
    }
}

