import Foundation
import XCTest

/// `coffer passwd`: the old passphrase stops working, the new one opens the same items.
final class PasswdTests: XCTestCase {
    private var vaults: [TestVault] = []

    override func tearDown() {
        vaults.forEach { $0.destroy() }
        vaults = []
        super.tearDown()
    }

    /// A vault with two items; returns it and its `export -` text (every item, secrets included).
    private func vaultWithItems() throws -> (TestVault, String) {
        let vault = try TestVault.make()
        vaults.append(vault)
        _ = try vault.add("first", ["--username", "one", "--password", "pw-1", "--totp", "JBSWY3DPEHPK3PXP"])
        let second = try vault.add("Zweite Tür", ["--password", "pw-2", "--tag", "t"])
        _ = try vault.ok(["edit", second, "--password", "pw-2b"])
        return (vault, try vault.ok(["export", "--format", "json", "-"]).out)
    }

    private func run(_ vault: TestVault, passphraseFile: String, _ arguments: [String]) throws -> CofferResult {
        try CofferProcess.run(["--vault", vault.path, "--passphrase-file", passphraseFile] + arguments, home: vault.root)
    }

    func testPasswdWithNewPassphraseFile() throws {
        let (vault, exported) = try vaultWithItems()
        let newFile = try vault.writeWorkFile("new", "a new passphrase, Ünïcødé\n")
        let result = try vault.ok(["passwd", "--new-passphrase-file", newFile] + TestVault.fastKDF)
        XCTAssertEqual(result.out, "")
        XCTAssertTrue(result.err.lowercased().contains("changed"), result.summary)

        assertError(try vault.run(["list"]), 3, mentions: ["wrong passphrase"])
        let after = try run(vault, passphraseFile: newFile, ["export", "--format", "json", "-"])
        assertOK(after)
        XCTAssertEqual(after.out, exported, "the items changed with the passphrase")
        // The new passphrase also works through stdin.
        assertOK(try vault.run(["list"], unlock: false, stdin: utf8("a new passphrase, Ünïcødé\n")))
    }

    func testPasswdReadsTheNewPassphraseFromStdinsSecondLine() throws {
        let (vault, exported) = try vaultWithItems()
        let result = try vault.run(["passwd"] + TestVault.fastKDF, unlock: false,
                                   stdin: utf8("\(vault.passphrase)\nsecond line passphrase\n"))
        assertOK(result)

        assertError(try vault.run(["list"], unlock: false, stdin: utf8(vault.passphrase + "\n")), 3, mentions: ["wrong passphrase"])
        let after = try vault.run(["export", "--format", "json", "-"], unlock: false, stdin: utf8("second line passphrase\n"))
        assertOK(after)
        XCTAssertEqual(after.out, exported)
        // And it can be changed again, back through a file.
        let again = try vault.run(["passwd", "--new-passphrase-file", vault.passphraseFile] + TestVault.fastKDF,
                                  unlock: false, stdin: utf8("second line passphrase\n"))
        assertOK(again)
        XCTAssertEqual(try vault.ok(["export", "--format", "json", "-"]).out, exported)
    }

    func testPasswdWithAWrongOldPassphraseOrAnEmptyNewOneChangesNothing() throws {
        let vault = try TestVault.make()
        vaults.append(vault)
        let id = try vault.add("kept", ["--password", "kept-pw"])
        let before = try vault.vaultContents()

        // Wrong old passphrase.
        assertError(try vault.run(["passwd"] + TestVault.fastKDF, unlock: false, stdin: utf8("not it\nnew one\n")), 3,
                    mentions: ["wrong passphrase"])
        // No second line: no new passphrase.
        assertError(try vault.run(["passwd"] + TestVault.fastKDF, unlock: false, stdin: utf8(vault.passphrase + "\n")), 1,
                    mentions: ["passphrase"])
        // An empty new passphrase.
        let empty = try vault.writeWorkFile("empty", "\n")
        assertError(try vault.run(["passwd", "--new-passphrase-file", empty] + TestVault.fastKDF), 1, mentions: ["empty"])
        // A KDF below the minimum.
        let weak = try vault.writeWorkFile("weak", "weak kdf\n")
        let downgrade = try vault.run(["passwd", "--new-passphrase-file", weak, "--kdf-memory", "8"])
        XCTAssertNotEqual(downgrade.status, 0)
        assertError(downgrade, downgrade.status, mentions: ["64 MiB"])

        XCTAssertEqual(try vault.vaultContents(), before)
        XCTAssertEqual(try vault.show(id, reveal: true)["password"] as? String, "kept-pw")
    }
}
