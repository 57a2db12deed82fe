import Foundation
import XCTest

/// Where an unlocking command takes the passphrase from (architecture §6): `--passphrase-file PATH`'s
/// first line, else stdin's first line when stdin is not a terminal; a wrong one is exit 3 on
/// every command that unlocks.
final class PassphraseTests: XCTestCase {
    nonisolated(unsafe) private static var shared: TestVault?
    nonisolated(unsafe) private static var sharedID = ""

    /// One vault with one item, unlocked by a passphrase with spaces and non-ASCII characters.
    private func vault() throws -> (TestVault, String) {
        if let vault = Self.shared { return (vault, Self.sharedID) }
        let vault = try TestVault(passphrase: "Grüße aus 東京, mit Leerzeichen ☕")
        assertOK(try vault.run(["init"] + TestVault.fastKDF))
        Self.shared = vault
        Self.sharedID = try vault.add("only item", ["--password", "pw-one"])
        return (vault, Self.sharedID)
    }

    override class func tearDown() {
        shared?.destroy()
        shared = nil
        super.tearDown()
    }

    func testPassphraseFromStdinFirstLineOnly() throws {
        let (vault, id) = try vault()
        // Later lines are ignored; a CRLF ending is not part of the passphrase.
        for input in ["\(vault.passphrase)\n", "\(vault.passphrase)\nnot this\n", "\(vault.passphrase)\r\n", vault.passphrase] {
            let result = try vault.run(["show", id, "--json"], unlock: false, stdin: utf8(input))
            assertOK(result)
            XCTAssertEqual(try result.jsonObject()["id"] as? String, id)
        }
        // A passphrase with extra text on its line is a different passphrase.
        assertError(try vault.run(["list"], unlock: false, stdin: utf8(vault.passphrase + " \n")), 3, mentions: ["wrong passphrase"])
    }

    func testPassphraseFromFileFirstLineOnly() throws {
        let (vault, id) = try vault()
        for (name, text) in [("crlf", "\(vault.passphrase)\r\nsecond line\r\n"), ("bare", vault.passphrase)] {
            let file = try vault.writeWorkFile("pass-\(name)", text)
            let result = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", file, "show", id, "--json"], home: vault.root)
            assertOK(result)
        }
        // The file wins over stdin.
        let result = try vault.run(["list", "--json"], stdin: utf8("wrong\n"))
        assertOK(result)
        XCTAssertEqual(try result.jsonArray().count, 1)
    }

    func testMissingPassphraseSourcesAreOneLineErrors() throws {
        let (vault, _) = try vault()
        let missing = vault.work.appendingPathComponent("no-such-file").path
        assertError(try CofferProcess.run(["--vault", vault.path, "--passphrase-file", missing, "list"], home: vault.root), 1,
                    mentions: [missing])
        assertError(try vault.run(["list"], unlock: false, stdin: Data()), 1, mentions: ["passphrase"])
    }

    func testWrongPassphraseIsExit3OnEveryUnlockingCommandAndChangesNothing() throws {
        let (vault, id) = try vault()
        let wrong = try vault.writeWorkFile("wrong-passphrase", "Grüße aus 東京, mit Leerzeichen\n")
        let exportPath = vault.work.appendingPathComponent("wrong-export.json").path
        let importPath = try vault.writeWorkFile("import.json", #"[{"title": "never imported"}]"#)
        let newPassphrase = try vault.writeWorkFile("new-passphrase", "never used\n")
        let before = try vault.vaultContents()
        let statusBefore = try canonicalJSON(try vault.status())

        let commands: [[String]] = [
            ["add", "--title", "never added"],
            ["edit", id, "--title", "never edited"],
            ["rm", id],
            ["show", id],
            ["show", id, "--reveal", "--json"],
            ["list"],
            ["search", "only"],
            ["history", id],
            ["export", "--format", "json", exportPath],
            ["import", "--format", "json", importPath],
            ["passwd", "--new-passphrase-file", newPassphrase] + TestVault.fastKDF,
        ]
        var invocations = commands.map {
            CofferProcess.Invocation(arguments: ["--vault", vault.path, "--passphrase-file", wrong] + $0, home: vault.root)
        }
        // The same through stdin, for a reading and a writing command.
        invocations += [["list"], ["add", "--title", "never added"]].map {
            CofferProcess.Invocation(arguments: ["--vault", vault.path] + $0, stdin: utf8("wrong\n"), home: vault.root)
        }
        for result in try CofferProcess.runConcurrently(invocations) {
            assertError(result, 3, mentions: ["wrong passphrase"])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: exportPath), "export wrote a file without the passphrase")
        XCTAssertEqual(try vault.vaultContents(), before, "a failed unlock changed the vault file")
        XCTAssertEqual(try canonicalJSON(try vault.status()), statusBefore)
        XCTAssertEqual(try vault.show(id, reveal: true)["password"] as? String, "pw-one")
    }
}
