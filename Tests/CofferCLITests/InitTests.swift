import Foundation
import XCTest

/// `coffer init`: file and directory modes, refusing to overwrite, unwritable places, and where the
/// new passphrase comes from.
final class InitTests: XCTestCase {
    private var vaults: [TestVault] = []

    override func tearDown() {
        vaults.forEach { $0.destroy() }
        vaults = []
        super.tearDown()
    }

    private func fresh() throws -> TestVault {
        let vault = try TestVault()
        vaults.append(vault)
        return vault
    }

    func testInitCreatesA0600FileInA0700DirectoryAndAnEmptyVault() throws {
        let vault = try fresh()
        XCTAssertFalse(FileManager.default.fileExists(atPath: vault.directory.path))
        let result = try vault.run(["init"] + TestVault.fastKDF)
        assertOK(result)
        XCTAssertEqual(result.out, "", "init prints nothing on stdout")
        XCTAssertTrue(result.err.contains("Created"), result.summary)
        XCTAssertEqual(try permissions(vault.path), 0o600)
        XCTAssertEqual(try permissions(vault.directory.path), 0o700)
        XCTAssertEqual(try vault.vaultBytes().prefix(16), Data("SQLite format 3\0".utf8))

        let status = try vault.status()
        XCTAssertEqual(status["items"] as? Int, 0)
        XCTAssertEqual(try vault.list().count, 0)
    }

    func testInitCreatesEveryMissingDirectory0700() throws {
        let vault = try fresh()
        let nested = vault.root.appendingPathComponent("a/b/c")
        let path = nested.appendingPathComponent("v.db").path
        let result = try CofferProcess.run(["--vault", path, "--passphrase-file", vault.passphraseFile, "init"] + TestVault.fastKDF,
                                           home: vault.root)
        assertOK(result)
        XCTAssertEqual(try permissions(path), 0o600)
        for directory in ["a", "a/b", "a/b/c"] {
            XCTAssertEqual(try permissions(vault.root.appendingPathComponent(directory).path), 0o700, directory)
        }
    }

    func testInitOverAnExistingVaultFailsAndLeavesItUnchanged() throws {
        let vault = try TestVault.make()
        vaults.append(vault)
        _ = try vault.add("kept")
        let before = try vault.vaultBytes()
        let result = try vault.run(["init"] + TestVault.fastKDF)
        assertError(result, 1, mentions: ["already exists", vault.path])
        XCTAssertEqual(try vault.vaultBytes(), before)
        XCTAssertEqual(try vault.list().map { $0["title"] as? String }, ["kept"])
    }

    func testInitOverAnyExistingFileFailsAndLeavesItUnchanged() throws {
        let vault = try fresh()
        let path = try vault.writeWorkFile("notes.txt", "my precious notes\n")
        let result = try CofferProcess.run(["--vault", path, "--passphrase-file", vault.passphraseFile, "init"] + TestVault.fastKDF,
                                           home: vault.root)
        assertError(result, 1, mentions: ["already exists"])
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "my precious notes\n")
    }

    /// Tests run as root, so `chmod` cannot make a directory unwritable: use places no one can write.
    func testInitInAnUnwritablePlaceFailsWithAClearMessage() throws {
        let vault = try fresh()
        // A directory that cannot be created: its parent is a regular file.
        let underFile = vault.passphraseFile + "/sub/vault.db"
        var result = try CofferProcess.run(["--vault", underFile, "--passphrase-file", vault.passphraseFile, "init"] + TestVault.fastKDF,
                                           home: vault.root)
        assertError(result, 1, mentions: ["cannot create the vault", underFile, "directory"])
        XCTAssertEqual(try String(contentsOfFile: vault.passphraseFile, encoding: .utf8), vault.passphrase + "\n")

        // /proc and /sys accept no new files, even from root.
        for path in ["/proc/coffer-\(UUID().uuidString).db", "/sys/coffer-\(UUID().uuidString).db"] {
            result = try CofferProcess.run(["--vault", path, "--passphrase-file", vault.passphraseFile, "init"] + TestVault.fastKDF,
                                           home: vault.root)
            assertError(result, 1, mentions: ["cannot create the vault", path])
            XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        }
    }

    func testInitRefusesKDFParametersBelowTheMinimum() throws {
        let vault = try fresh()
        let result = try vault.run(["init", "--kdf-memory", "32", "--kdf-iterations", "3"])
        XCTAssertNotEqual(result.status, 0, result.summary)
        assertError(result, result.status, mentions: ["64 MiB"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: vault.path))
    }

    func testInitReadsThePassphraseFromTheFirstLineOfStdin() throws {
        let vault = try fresh()
        // The second line is not part of the passphrase.
        let result = try vault.run(["init"] + TestVault.fastKDF, unlock: false,
                                   stdin: utf8("\(vault.passphrase)\nsomething else\n"))
        assertOK(result)
        _ = try vault.add("opened with the file")
        assertError(try vault.run(["list"], unlock: false, stdin: utf8("something else\n")), 3, mentions: ["wrong passphrase"])
    }

    func testInitRefusesAnEmptyPassphraseAndAMissingOne() throws {
        let vault = try fresh()
        assertError(try vault.run(["init"] + TestVault.fastKDF, unlock: false, stdin: utf8("\n")), 1, mentions: ["empty"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: vault.path))
        assertError(try vault.run(["init"] + TestVault.fastKDF, unlock: false, stdin: Data()), 1, mentions: ["passphrase"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: vault.path))
    }
}
