import CofferTestSupport
import Foundation
import XCTest

/// The built binary on a vault whose filesystem is full (a small tmpfs filled to the last byte):
/// `add`, `import`, `passwd` and `sync` each fail with one sentence that says the disk is full
/// (exit 1, "any other error"), lose nothing written before, leave a vault that opens, and succeed
/// once space is freed. Needs root for the mount (CI is root); without it the tests fail.
final class DiskFullTests: XCTestCase {
    private var vaults: [TestVault] = []
    private var filesystems: [SmallFilesystem] = []

    override func tearDown() {
        for filesystem in filesystems { filesystem.unmount() }
        for vault in vaults { vault.destroy() }
        super.tearDown()
    }

    /// A vault made by `coffer init` inside a fresh tmpfs of `megabytes` MiB.
    private func vaultOnSmallFilesystem(megabytes: Int = 8, passphrase: String? = nil,
                                        file: StaticString = #filePath, line: UInt = #line)
        throws -> (TestVault, SmallFilesystem) {
        let vault = try passphrase.map { try TestVault(passphrase: $0) } ?? TestVault()
        vaults.append(vault)
        let filesystem = try SmallFilesystem(at: vault.directory, megabytes: megabytes, file: file, line: line)
        filesystems.append(filesystem)
        return (vault, filesystem)
    }

    private func initialise(_ vault: TestVault, file: StaticString = #filePath, line: UInt = #line) throws {
        assertOK(try vault.run(["init"] + TestVault.fastKDF, file: file, line: line), file: file, line: line)
    }

    /// Three items with secrets, to check afterwards that none was lost.
    private func addEarlierItems(_ vault: TestVault, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String] {
        var passwords: [String: String] = [:]
        for n in 1...3 {
            let id = try vault.add("Earlier \(n)", ["--username", "user\(n)", "--password", "secret-\(n)"], file: file, line: line)
            passwords[id] = "secret-\(n)"
        }
        return passwords
    }

    /// Every item is there with its password, read by a new process (the vault opens).
    private func assertItems(_ vault: TestVault, _ passwords: [String: String], count: Int? = nil,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let listed = try vault.list(file: file, line: line)
        XCTAssertEqual(listed.count, count ?? passwords.count, "items listed", file: file, line: line)
        for (id, password) in passwords {
            XCTAssertEqual(try vault.show(id, reveal: true, file: file, line: line)["password"] as? String, password,
                           "item \(id)", file: file, line: line)
        }
    }

    /// One sentence naming the full disk, exit 1, and no SQLite code or jargon in it.
    private func assertDiskFull(_ result: CofferResult, file: StaticString = #filePath, line: UInt = #line) {
        assertError(result, 1, mentions: ["disk is full"], file: file, line: line)
        for jargon in ["SQLITE", "SQLite error", "errno", "IOERR"] {
            XCTAssertFalse(result.err.contains(jargon), "the sentence leaks \(jargon): \(result.summary)", file: file, line: line)
        }
    }

    /// While the disk is still full, reading works or says the disk is full: SQLite must grow the
    /// vault's 32 KiB `-shm` index to open it, and on a disk without one free page it cannot.
    private func assertReadsOrSaysDiskFull(_ vault: TestVault, _ passwords: [String: String],
                                           file: StaticString = #filePath, line: UInt = #line) throws {
        let listed = try vault.run(["list", "--json"], file: file, line: line)
        if listed.status == 0 {
            XCTAssertEqual(try listed.jsonArray(file: file, line: line).count, passwords.count, file: file, line: line)
        } else {
            assertDiskFull(listed, file: file, line: line)
        }
    }

    func testAddOnAFullDiskSaysSoAndLosesNothing() throws {
        let (vault, filesystem) = try vaultOnSmallFilesystem()
        try initialise(vault)
        let passwords = try addEarlierItems(vault)
        try filesystem.fill()

        assertDiskFull(try vault.run(["add", "--title", "Too late", "--password", "nope"]))
        try assertReadsOrSaysDiskFull(vault, passwords)

        try filesystem.free()
        try assertItems(vault, passwords)
        let id = try vault.add("After", ["--password", "fits now"])
        try assertItems(vault, passwords.merging([id: "fits now"]) { $1 })
    }

    func testImportOnAFullDiskSaysSoAndImportsNothing() throws {
        try importIntoFullDisk(leaving: 0)
    }

    /// Room to open the vault but not for 200 items: the import runs out halfway through its
    /// transaction (SQLITE_FULL while writing the WAL) and rolls back whole.
    func testImportRunningOutOfRoomHalfwayImportsNothing() throws {
        try importIntoFullDisk(leaving: 256 * 1024)
    }

    private func importIntoFullDisk(leaving room: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let (vault, filesystem) = try vaultOnSmallFilesystem(file: file, line: line)
        try initialise(vault, file: file, line: line)
        let passwords = try addEarlierItems(vault, file: file, line: line)
        // The file to import lies outside the full filesystem: 200 items with notes of ~3 KB.
        let items = (1...200).map { n -> [String: Any] in
            ["title": "Imported \(n)", "username": "u\(n)", "password": "p\(n)",
             "notes": String(repeating: "note \(n) ", count: 400)]
        }
        let importFile = try vault.writeWorkFile("import.json", try JSONSerialization.data(withJSONObject: items))
        try filesystem.fill(leaving: room, file: file, line: line)

        assertDiskFull(try vault.run(["import", "--format", "json", importFile], file: file, line: line), file: file, line: line)
        try assertReadsOrSaysDiskFull(vault, passwords, file: file, line: line)

        try filesystem.free()
        try assertItems(vault, passwords, file: file, line: line)  // nothing half-imported
        assertOK(try vault.run(["import", "--format", "json", importFile], file: file, line: line), file: file, line: line)
        try assertItems(vault, passwords, count: 203, file: file, line: line)
    }

    func testPasswdOnAFullDiskSaysSoAndKeepsTheOldPassphrase() throws {
        let (vault, filesystem) = try vaultOnSmallFilesystem()
        try initialise(vault)
        let passwords = try addEarlierItems(vault)
        let newFile = try vault.writeWorkFile("new-passphrase", "a brand new passphrase \(UUID().uuidString.prefix(6))\n")
        try filesystem.fill()

        assertDiskFull(try vault.run(["passwd", "--new-passphrase-file", newFile] + TestVault.fastKDF))
        try assertReadsOrSaysDiskFull(vault, passwords)

        try filesystem.free()
        try assertItems(vault, passwords)  // the old passphrase still opens it, the new one does not
        assertError(try CofferProcess.run(["--vault", vault.path, "--passphrase-file", newFile, "list"], home: vault.root), 3)
        assertOK(try vault.run(["passwd", "--new-passphrase-file", newFile] + TestVault.fastKDF))
        assertOK(try CofferProcess.run(["--vault", vault.path, "--passphrase-file", newFile, "list"], home: vault.root))
    }

    func testSyncIntoAFullDiskSaysSoAndKeepsWhatItHad() throws {
        try syncIntoFullDisk(leaving: 0)
    }

    /// Room to open the vault but not for the 100 items it downloads: the sync runs out of room
    /// while storing them.
    func testSyncRunningOutOfRoomHalfwayKeepsWhatItHad() throws {
        try syncIntoFullDisk(leaving: 256 * 1024)
    }

    private func syncIntoFullDisk(leaving room: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try TestKinto.url()
        // The first device lives on the ordinary disk; the second joins on a small filesystem.
        let first = try TestVault.make()
        vaults.append(first)
        let passwords = try addEarlierItems(first)
        let account = ("cli-\(UUID().uuidString.lowercased())", "pw-\(UUID().uuidString)")
        let accountFile = try first.writeWorkFile("account-password", account.1 + "\n")
        assertOK(try first.run(["account", "signup", "--server", server.absoluteString, "--user", account.0,
                                "--password-file", accountFile], unlock: false))
        let (second, filesystem) = try vaultOnSmallFilesystem(passphrase: first.passphrase)
        assertOK(try second.run(["join", "--server", server.absoluteString, "--user", account.0,
                                 "--password-file", try second.writeWorkFile("account-password", account.1 + "\n")]))
        try assertItems(second, passwords)

        // 100 items of ~4 KB on the first device, then the second's disk fills before it syncs.
        let file = try first.writeWorkFile("many.json", try JSONSerialization.data(withJSONObject: (1...100).map {
            ["title": "Synced \($0)", "password": "s\($0)", "notes": String(repeating: "x", count: 4000)]
        }))
        assertOK(try first.run(["import", "--format", "json", file]))
        assertOK(try first.run(["sync"]))
        try filesystem.fill(leaving: room)

        assertDiskFull(try second.run(["sync"]))
        try assertReadsOrSaysDiskFull(second, passwords)

        try filesystem.free()
        try assertItems(second, passwords)
        assertOK(try second.run(["sync"]))
        try assertItems(second, passwords, count: 103)
    }
}
