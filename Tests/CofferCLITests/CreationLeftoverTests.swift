import CofferCore
import Foundation
import XCTest

/// A crash while a vault is being created leaves `<vault>.creating-*` files (and their -wal,
/// -shm); the next `init` or open removes them, but never the files of a creation still running.
final class CreationLeftoverTests: XCTestCase {
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

    /// `coffer init` for `vault`, dying just before the new file is linked into place (exit 86).
    private func crashInit(_ vault: TestVault, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "init"] + TestVault.fastKDF,
                                           home: vault.root, environment: [CrashPoint.environmentVariable: "vault.create.before-link"],
                                           file: file, line: line)
        assertExit(result, CrashPoint.exitCode, file: file, line: line)
    }

    private func creationFiles(_ vault: TestVault) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vault.directory.path).filter { $0.contains(".creating-") }.sorted()
    }

    func testInitAfterACrashedInitRemovesWhatItLeft() throws {
        let vault = try fresh()
        try crashInit(vault)
        let left = try creationFiles(vault)
        XCTAssertTrue(left.contains { $0.hasPrefix("vault.db.creating-") && !$0.contains("-wal") && !$0.contains("-shm") },
                      "the crash left the half-made file: \(left)")
        XCTAssertTrue(left.contains { $0.hasSuffix("-wal") }, "the crash left its WAL: \(left)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: vault.path))

        assertOK(try vault.run(["init"] + TestVault.fastKDF))
        XCTAssertEqual(try creationFiles(vault), [])
        let id = try vault.add("after the crash", ["--password", "kept"])
        XCTAssertEqual(try vault.show(id, reveal: true)["password"] as? String, "kept")
    }

    func testOpeningAVaultRemovesWhatACrashedCreationLeft() throws {
        let vault = try fresh()
        try crashInit(vault)
        // Keep the leftovers aside while a vault is made, then put them back beside it.
        let left = try creationFiles(vault)
        XCTAssertFalse(left.isEmpty)
        let aside = vault.work.appendingPathComponent("aside")
        try FileManager.default.createDirectory(at: aside, withIntermediateDirectories: true)
        for name in left {
            try FileManager.default.moveItem(at: vault.directory.appendingPathComponent(name), to: aside.appendingPathComponent(name))
        }
        assertOK(try vault.run(["init"] + TestVault.fastKDF))
        for name in left {
            try FileManager.default.moveItem(at: aside.appendingPathComponent(name), to: vault.directory.appendingPathComponent(name))
        }
        XCTAssertEqual(try creationFiles(vault), left)

        XCTAssertEqual(try vault.itemCount(), 0, "`status` opens the vault")
        XCTAssertEqual(try creationFiles(vault), [])
        _ = try vault.add("works")
        XCTAssertEqual(try vault.itemCount(), 1)
    }

    /// While this process is creating a vault (inside its transaction, its file locked), another
    /// `coffer` crashes creating one at the same path, then a third runs `init`: the third removes
    /// the crashed creation's files, keeps ours, and wins the path; ours then fails cleanly.
    func testARunningCreationKeepsItsFilesWhileACrashedOnesGo() throws {
        let vault = try fresh()
        var seenInside: (ours: [String], afterCrash: [String], afterInit: [String]) = ([], [], [])
        XCTAssertThrowsError(try VaultDatabase.create(at: vault.path) { _ in
            seenInside.ours = try self.creationFiles(vault)
            try self.crashInit(vault)
            seenInside.afterCrash = try self.creationFiles(vault)
            assertOK(try vault.run(["init"] + TestVault.fastKDF))
            seenInside.afterInit = try self.creationFiles(vault)
        }) { error in
            XCTAssertEqual(error as? CoreError, .vaultExists(path: vault.path), "the other `init` linked its vault first")
        }
        let ours = seenInside.ours.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        XCTAssertEqual(ours.count, 1, "one creation running: \(seenInside.ours)")
        XCTAssertGreaterThan(Set(seenInside.afterCrash).subtracting(seenInside.ours).count, 0,
                             "the crash left files: \(seenInside.afterCrash)")
        XCTAssertEqual(seenInside.afterInit, seenInside.ours, "the crashed creation's files went, ours stayed")
        XCTAssertEqual(try creationFiles(vault), [], "ours went when it failed")
        XCTAssertEqual(try vault.itemCount(), 0, "the other `init`'s vault works")
    }
}
