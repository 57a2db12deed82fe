import Foundation
import XCTest

/// Exit codes (architecture §6) for usage mistakes and missing or foreign vault files; each error is one
/// line on stderr and nothing on stdout. (Wrong passphrases: PassphraseTests; no such item and
/// invalid items: ItemCommandTests and ImportExportTests.)
final class ExitCodeTests: XCTestCase {
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

    func testUsageErrorsAreExit2OnOneLine() throws {
        let vault = try vault()
        let count = try vault.itemCount()
        let cases: [([String], [String])] = [
            (["frobnicate"], ["frobnicate"]),
            (["list", "--frobnicate"], ["--frobnicate"]),
            (["--frobnicate", "list"], ["--frobnicate"]),
            (["add"], ["--title"]),
            (["add", "--username", "u"], ["--title"]),
            (["add", "--title"], ["--title"]),
            (["show"], ["name"]),
            (["edit"], ["name"]),
            (["rm"], ["name"]),
            (["restore"], ["name"]),
            (["history"], ["name"]),
            (["totp"], ["name"]),
            (["copy"], ["name"]),
            (["show", "x", "--field"], ["--field"]),
            (["--clipboard-seconds", "-1", "copy", "x"], ["--clipboard-seconds"]),
            // The screen's own options (read by hand when they are all there is: ScreenStart).
            (["--clipboard-seconds", "-1"], ["--clipboard-seconds"]),
            (["--clipboard-seconds=-1"], ["--clipboard-seconds"]),
            (["--clipboard-seconds", "inf"], ["--clipboard-seconds"]),
            (["--auto-lock", "soon"], ["soon"]),
            (["--vault"], ["--vault"]),
            (["--vault", "a.db", "--frobnicate"], ["--frobnicate"]),
            // `coffer sync`'s options, read by hand when they are all there is.
            (["sync", "--frobnicate"], ["--frobnicate"]),
            (["sync", "--unlock", "--unlock", "--vault"], ["--vault"]),
            (["--unlock", "sync"], ["--unlock"]),
            (["sync", "sync"], ["sync"]),
            (["search"], ["query"]),
            (["show", "a", "b"], ["b"]),
            (["add", "--title", "x", "--length", "lots", "--generate"], ["lots"]),
            (["export", "--format", "firefox", "out.csv"], ["firefox"]),
            (["import", "--format", "lastpass", "in.csv"], ["lastpass"]),
            (["export"], ["file"]),
            (["init", "--kdf-memory", "sixty"], ["sixty"]),
        ]
        for (arguments, mentions) in cases {
            assertError(try vault.run(arguments), 2, mentions: mentions)
        }
        XCTAssertEqual(try vault.itemCount(), count)
    }

    /// With no command and no terminal, `coffer` says what the vault holds and lists the commands;
    /// the screen's options are taken in both spellings.
    func testNoCommandWithoutATerminalDescribesTheVault() throws {
        let vault = try vault()
        for options in [["--vault", vault.path, "--auto-lock", "5", "--clipboard-seconds", "0"],
                        ["--auto-lock=0", "--vault=\(vault.path)"]] {
            let result = try CofferProcess.run(options)
            assertOK(result)
            XCTAssertTrue(result.out.contains(vault.path) && result.out.contains("items"), result.summary)
            XCTAssertTrue(result.out.contains("USAGE"), result.summary)
        }
        // `--vault NAME` names a shared vault, NAME.db beside the personal one, as for every command.
        let family = vault.directory.appendingPathComponent("family.db").path
        assertOK(try CofferProcess.run(["--vault", family, "--passphrase-file", vault.passphraseFile, "init"] + TestVault.fastKDF,
                                       home: vault.root))
        let byName = try CofferProcess.run(["--vault", "family"], home: vault.root, environment: ["COFFER_VAULT": vault.path])
        assertOK(byName)
        XCTAssertTrue(byName.out.contains(family), byName.summary)
    }

    func testHelpAndVersionExit0OnStdout() throws {
        let help = try CofferProcess.run(["--help"])
        assertOK(help)
        XCTAssertTrue(help.out.contains("USAGE") || help.out.contains("Usage"), help.summary)
        for command in ["init", "add", "edit", "rm", "trash", "restore", "show", "list", "search", "history", "generate", "passwd", "status",
                        "import", "export", "totp", "copy"] {
            XCTAssertTrue(help.out.contains(command), "help does not list \(command)")
        }
        // The options `ScreenStart` reads by hand must be the root command's.
        for option in ["--vault <vault>", "--auto-lock <auto-lock>", "--clipboard-seconds <clipboard-seconds>"] {
            XCTAssertTrue(help.out.contains(option), "help does not list \(option)")
        }
        let addHelp = try CofferProcess.run(["add", "--help"])
        assertOK(addHelp)
        XCTAssertTrue(addHelp.out.contains("--title"), addHelp.summary)
        let version = try CofferProcess.run(["--version"])
        assertOK(version)
        XCTAssertFalse(version.line.isEmpty)
    }

    func testMissingVaultIsExit1() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-missing-\(UUID().uuidString)/vault.db").path
        let vault = try vault()
        for command in [["list"], ["show", UUID().uuidString.lowercased()], ["add", "--title", "x"], ["status"]] {
            let result = try CofferProcess.run(["--vault", missing, "--passphrase-file", vault.passphraseFile] + command)
            assertError(result, 1, mentions: ["no vault", missing])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "a command other than init created a vault")
    }

    func testAFileThatIsNotAVaultIsExit1AndUntouched() throws {
        let vault = try vault()
        let text = try vault.writeWorkFile("not-a-vault.db", "just some text, not SQLite\n")
        for command in [["list"], ["status"]] {
            let result = try CofferProcess.run(["--vault", text, "--passphrase-file", vault.passphraseFile] + command)
            assertError(result, 1, mentions: ["not a coffer vault"])
        }
        XCTAssertEqual(try String(contentsOfFile: text, encoding: .utf8), "just some text, not SQLite\n")
    }

    func testTheVaultPathComesFromCOFFER_VAULTOrXDGDataHome() throws {
        let vault = try vault()
        // Without --vault, the default is $XDG_DATA_HOME/coffer/vault.db (the helper points it into a temporary home).
        let home = vault.root.appendingPathComponent("home")
        let created = try CofferProcess.run(["--passphrase-file", vault.passphraseFile, "init"] + TestVault.fastKDF, home: home)
        assertOK(created)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.appendingPathComponent("data/coffer/vault.db").path),
                      created.summary)
        // $COFFER_VAULT comes before it.
        let byEnvironment = try CofferProcess.run(["status", "--json"], home: home, environment: ["COFFER_VAULT": vault.path])
        assertOK(byEnvironment)
        XCTAssertEqual(try byEnvironment.jsonObject()["items"] as? Int, try vault.itemCount())
        let missing = vault.work.appendingPathComponent("elsewhere.db").path
        assertError(try CofferProcess.run(["status"], home: home, environment: ["COFFER_VAULT": missing]), 1, mentions: [missing])
    }

    /// Without `$XDG_DATA_HOME` (or with a relative one, which the XDG specification says to
    /// ignore) the vault is `$HOME/.local/share/coffer/vault.db`, for the `$HOME` given: it was
    /// the password database's home (`NSHomeDirectory()`), `/root/...` under `HOME=/elsewhere`.
    func testWithoutXDGDataHomeTheVaultIsUnderHOME() throws {
        // `status` names the vault it did not find, and creates nothing (wherever a regression looks).
        let vault = try vault()
        for (name, dataHome) in [("unset", ""), ("relative", "relative/data")] {
            let home = vault.root.appendingPathComponent("home-\(name)")
            let expected = home.appendingPathComponent(".local/share/coffer/vault.db").path
            assertError(try CofferProcess.run(["status"], home: home, environment: ["XDG_DATA_HOME": dataHome]), 1,
                        mentions: [expected])
        }
    }
}
