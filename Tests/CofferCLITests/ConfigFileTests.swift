import Foundation
import XCTest

/// config.toml with the real binary (issue 43): keys remapped on the screen in tmux, and files
/// Coffer refuses or warns about.
final class ConfigFileTests: XCTestCase {
    /// Writes `text` where `coffer` run with HOME=`vault.root` finds its configuration.
    private func writeConfig(_ text: String, in vault: TestVault) throws -> String {
        let directory = vault.root.appendingPathComponent(".config/coffer")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("config.toml").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)   // a file others may write is refused, whatever the umask
        return path
    }

    /// One screen with many keys remapped: the help page and the hint line show the new keys,
    /// and the remapped keys move, copy, open a new item of the configured kind and quit, while
    /// the old ones no longer do.
    func testRemappedKeysOnTheScreen() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        _ = try vault.add("Alpha", ["--username", "ann", "--password", "alpha-pw"])
        _ = try vault.add("Beta", ["--username", "bob", "--password", "beta-pw"])
        _ = try writeConfig("""
            new-item-kind = "note"
            clipboard-seconds = 30

            [keys]
            help = "F9"
            new-item = "A"
            copy-password = "y"
            copy-username = "Y"
            move-down = "J Down"
            move-up = "^P Up"
            start-filter = "F4"
            toggle-sort = "S"
            quit = "Q"
            lock = "^L"
            redraw = "F10"
            """, in: vault)
        let screen = try ScreenSession(vault: vault.path, home: vault.root)
        try screen.unlock(passphrase: vault.passphrase)
        screen.expect("F4 filter")
        screen.expect("S sort")
        screen.expect("F9 help")
        screen.expect("Q quit")

        try screen.press("F9")
        screen.expect("Keys · List")
        let help = screen.screen
        for line in ["y           Copy the password", "Y           Copy the username", "J ↓         Move down",
                     "^P ↑        Move up", "A           New login", "F4          New filter", "Q           Quit",
                     "^L          Lock now", "F10         Redraw"] {
            XCTAssertTrue(help.contains(line), "help lacks “\(line)”:\n\(help)")
        }
        try screen.press("Escape")
        screen.expectGone("Keys · List")

        // The old keys do nothing (q no longer quits, c no longer copies); the new ones act.
        try screen.press("q")
        try screen.press("J")
        try screen.press("y")
        screen.expect("Copied")
        XCTAssertEqual(screen.pasteBuffer, "beta-pw", "J moved to the second item and y copied its password")
        try screen.press("C-p")
        try screen.press("Y")
        screen.expect("Copied")
        XCTAssertEqual(screen.pasteBuffer, "ann", "^P moved back up and Y copied the username")

        try screen.press("A")
        screen.expect("New item · Secure note")
        try screen.type("From A")
        try screen.press("Enter")
        screen.expect("Saved “From A”")
        try screen.press("Escape")
        try screen.press("Q")
        screen.expect("EXIT=0")
        XCTAssertEqual(try vault.list().compactMap { $0["title"] as? String }.sorted(), ["Alpha", "Beta", "From A"])
        XCTAssertEqual(try vault.list().first { $0["title"] as? String == "From A" }?["kind"] as? String, "note")
    }

    /// A malformed file stops every command with one sentence naming the file and the line (exit 2).
    func testAMalformedFileIsOneSentence() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let path = try writeConfig("# mine\nauto-lock = \n", in: vault)
        for arguments in [["list"], ["status"], []] {
            let result = try vault.run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.err)")
            XCTAssertEqual(result.err, "Line 2 of \(path) has no value after “=”.\n", "\(arguments)")
        }
        _ = try writeConfig("[keys]\ncopy-password = \"u\"\n", in: vault)
        let clash = try vault.run(["list"])
        XCTAssertEqual(clash.status, 2)
        XCTAssertEqual(clash.err, "Line 2 of \(path) gives u to copy-password, but u also does copy-username on the List page: "
            + "a key does one thing (give copy-username another key too).\n")
        chmod(path, 0o666)
        let writable = try vault.run(["list"])
        XCTAssertEqual(writable.status, 2)
        XCTAssertEqual(writable.err, "The configuration file \(path) can be written by others (mode 666): `chmod go-w` it.\n")
        _ = try writeConfig("auto-lock = 0\n", in: vault)
        let unsafe = try vault.run(["list"])
        XCTAssertEqual(unsafe.status, 2)
        XCTAssertTrue(unsafe.err.hasPrefix("Line 1 of \(path) gives auto-lock 0 seconds: it takes 10 to 86400"), unsafe.err)
    }

    /// Unknown keys warn on stderr and the command goes on; the file's vault is the default one,
    /// below `COFFER_VAULT` and `--vault`.
    func testUnknownKeysWarnAndTheFilesVaultIsTheDefault() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        _ = try vault.add("Only here")
        let path = try writeConfig("colour = \"red\"\nvault = \"\(vault.path)\"\n", in: vault)
        let listed = try CofferProcess.run(["list", "--json", "--passphrase-file", vault.passphraseFile],
                                           home: vault.root)
        XCTAssertEqual(listed.status, 0, listed.err)
        XCTAssertTrue(listed.out.contains("Only here"), "the file's vault was not the default")
        XCTAssertEqual(listed.err, "Warning: Coffer does not know “colour” (line 1) and ignores it. (\(path))\n")
        let elsewhere = vault.root.appendingPathComponent("elsewhere.db").path
        let overridden = try CofferProcess.run(["list", "--json", "--passphrase-file", vault.passphraseFile],
                                               home: vault.root, environment: ["COFFER_VAULT": elsewhere])
        XCTAssertNotEqual(overridden.status, 0, "COFFER_VAULT did not win over the file")
    }
}
