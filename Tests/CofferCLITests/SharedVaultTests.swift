import CofferCore
import Foundation
import GRDB
import XCTest

/// A long-lived process (the screen) and `coffer` commands on one vault: this process plays the
/// screen through the `Vault` API, the commands are the real binary in child processes.
final class SharedVaultTests: XCTestCase {
    static let kdf = KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: 3)

    func unlocked(_ vault: TestVault) async throws -> Vault {
        let opened = try Vault.open(at: vault.path)
        try await opened.unlock(passphrase: SecureBuffer(copying: Array(vault.passphrase.utf8)))
        return opened
    }

    func titles(_ vault: TestVault) throws -> Set<String> {
        Set(try vault.list().compactMap { $0["title"] as? String })
    }

    /// Issue 10, first reproduction: a vault created in this process (the first-run screen), then
    /// writes alternating between it and `coffer add`. Creation used to close a descriptor of the
    /// vault after the pool opened, dropping this process's SQLite locks: a command then deleted
    /// the WAL under it and acknowledged writes of one side or the other vanished.
    func testAVaultCreatedHereKeepsItsLocksAndLosesNoWrite() async throws {
        let vault = try TestVault()
        defer { vault.destroy() }
        let screen = try Vault.create(at: vault.path, passphrase: SecureBuffer(copying: Array(vault.passphrase.utf8)),
                                      kdf: Self.kdf)
        var expected: Set<String> = []
        func addHere(_ title: String) async throws {
            try await screen.add(Item(title: title, created: .now()))
            expected.insert(title)
        }
        try await addHere("screen-1")
        for index in 1...3 { _ = try vault.add("cli-\(index)"); expected.insert("cli-\(index)") }
        try await addHere("screen-2")
        _ = try vault.add("cli-4")
        expected.insert("cli-4")
        try await addHere("screen-3")

        XCTAssertEqual(try titles(vault), expected, "an acknowledged write is missing")
        let here = Set(try await screen.listItems().compactMap { $0.item?.title })
        XCTAssertEqual(here, expected, "this process does not see every write")
        let walName = (vault.path as NSString).lastPathComponent + "-wal"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let deletedWAL = descriptors.contains { name in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) ?? ""
            return target.hasSuffix(walName + " (deleted)") && target.contains(vault.directory.path)
        }
        XCTAssertFalse(deletedWAL, "this process writes to a WAL another process deleted")
    }

    /// A crash between linking a new vault into place and removing its temporary name leaves that
    /// name as a second link to the vault. Removing it at the next open must not open (and close)
    /// the vault's own inode while a connection of this process is open on it.
    func testRemovingALinkedLeftoverKeepsThisProcesssLocks() async throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let screen = try await unlocked(vault)
        try await screen.add(Item(title: "before", created: .now()))
        let leftover = vault.path + ".creating-0badc0de"
        XCTAssertEqual(link(vault.path, leftover), 0)
        _ = try Vault.open(at: vault.path) // a second open in this process removes the leftover
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover))
        _ = try vault.add("cli")
        try await screen.add(Item(title: "after", created: .now()))
        _ = try vault.add("cli-2")
        XCTAssertEqual(try titles(vault), ["before", "cli", "after", "cli-2"])
    }

    /// Issue 10, second reproduction: the screen edits the title of an item a command changed
    /// since the screen loaded it. The command's username and notes stay; nothing goes back.
    func testAStaleEditMergesIntoTheNewerVersion() async throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let id = try vault.add("Mail", ["--username", "ann", "--password", "pw-1", "--notes", "old notes"])
        let screen = try await unlocked(vault)
        let loaded = try await screen.item(id)
        try vault.ok(["edit", id, "--username", "from-cli", "--notes", "cli-notes"])

        var edited = loaded
        edited.title = "Mail (work)"
        let saved = try await screen.update(edited, from: loaded)
        XCTAssertTrue(saved.mergedWithNewer)
        XCTAssertEqual(saved.conflicts, [])
        let shown = try vault.show(id, reveal: true)
        XCTAssertEqual(shown["title"] as? String, "Mail (work)")
        XCTAssertEqual(shown["username"] as? String, "from-cli")
        XCTAssertEqual(shown["notes"] as? String, "cli-notes")
        XCTAssertEqual(shown["password"] as? String, "pw-1")
    }

    /// Both changed the username: the edit being saved wins, the command's value is in history,
    /// and the item waits for review (⚑).
    func testAFieldBothChangedKeepsTheSavedEditAndTheOtherValueInHistory() async throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let id = try vault.add("Bank", ["--username", "ann"])
        let screen = try await unlocked(vault)
        let loaded = try await screen.item(id)
        try vault.ok(["edit", id, "--username", "from-cli"])

        var edited = loaded
        edited.entry.username = "from-screen"
        let saved = try await screen.update(edited, from: loaded)
        XCTAssertEqual(saved.conflicts, ["username"])
        XCTAssertEqual(try vault.show(id)["username"] as? String, "from-screen")
        let history = try vault.ok(["history", id, "--reveal"]).out
        XCTAssertTrue(history.contains("from-cli"), "the command's value is not in history:\n\(history)")
        let listed = try vault.list().first { $0["id"] as? String == id }
        XCTAssertTrue((listed?["badges"] as? [String])?.contains("merged") == true, "no ⚑: \(String(describing: listed))")
    }

    /// An edit of an item another process removed is refused with a sentence, never re-created
    /// silently (exit 4 from the command line).
    func testAnEditOfARemovedItemSaysSo() async throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let id = try vault.add("Gone")
        let screen = try await unlocked(vault)
        let loaded = try await screen.item(id)
        try vault.ok(["rm", "--purge", id])
        var edited = loaded
        edited.title = "Gone (edited)"
        do {
            _ = try await screen.update(edited, from: loaded)
            XCTFail("an edit of a removed item was saved")
        } catch let error as CoreError {
            XCTAssertEqual(error, .removedMeanwhile(id: id, title: "Gone (edited)"))
            XCTAssertTrue(error.description.contains("removed by another process"))
        }
        XCTAssertEqual(try vault.list().count, 0)
    }

    /// `--vault` naming a directory or a damaged file: one sentence, exit 1, no crash.
    func testBadVaultPathsAreOneSentence() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        _ = try vault.add("something")
        for arguments in [["list"], ["status"], ["add", "--title", "x"]] {
            let result = try CofferProcess.run(["--vault", vault.directory.path, "--passphrase-file", vault.passphraseFile]
                                               + arguments, home: vault.root)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.err)")
            XCTAssertTrue(result.err.contains("is not a Coffer vault (it is a directory)"), result.err)
            XCTAssertEqual(result.err.split(separator: "\n").count, 1, result.err)
        }
        let checkpoint = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "list"],
                                               home: vault.root)
        XCTAssertEqual(checkpoint.status, 0)
        let bytes = try vault.vaultBytes()
        let truncated = vault.work.appendingPathComponent("truncated.db").path
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let result = try CofferProcess.run(["--vault", truncated, "--passphrase-file", vault.passphraseFile, "list"],
                                           home: vault.root)
        XCTAssertEqual(result.status, 1, result.err)
        XCTAssertTrue(result.err.contains("is damaged"), result.err)
        XCTAssertFalse(result.err.contains("not a Coffer vault"), result.err)
        XCTAssertEqual(result.err.split(separator: "\n").count, 1, result.err)
    }

    /// Another process holding the write lock longer than the busy timeout: the command waits,
    /// then says the vault is busy (not corrupt), writes nothing, and works once the lock goes.
    func testAVaultKeptBusyIsReportedAsBusy() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true  // the lock must outlive one access: that is the test
        let holder = try DatabaseQueue(path: vault.path, configuration: configuration)
        try holder.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        let started = Date()
        let blocked = try vault.run(["add", "--title", "while busy"])
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 5, "the command did not wait for the lock")
        try holder.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        XCTAssertEqual(blocked.status, 1, blocked.err)
        XCTAssertTrue(blocked.err.contains("The vault is busy"), blocked.err)
        XCTAssertFalse(blocked.err.contains("corrupt") || blocked.err.contains("damaged"), blocked.err)
        XCTAssertEqual(try vault.list().count, 0)
        _ = try vault.add("after")
        XCTAssertEqual(try vault.list().count, 1)
    }
}

extension SharedVaultTests {
    /// `coffer search` keeps a sealed index in the vault, a cache it rewrites when out of date.
    /// Searches run beside edits, additions and removals by other commands and by this process
    /// (the screen), and each search after them finds exactly the acknowledged state: the index
    /// neither hides a change nor brings back an old version.
    func testSearchesBesideOtherWritersFindEveryAcknowledgedChange() async throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let ids = try vault.addAll((0..<8).map { ["item \($0)", "--notes", "plain"] })
        func found() throws -> Set<String> { Set(try vault.search("needle").compactMap { $0["id"] as? String }) }
        XCTAssertEqual(try found(), [], "the first search stores the index")
        let screen = try await unlocked(vault)
        var expected: Set<String> = []
        for round in 0..<4 {
            // An edit that makes an item match, an addition that matches, and a search, all at once.
            let results = try vault.runAll([
                ["edit", ids[round], "--notes", "needle \(round)"],
                ["add", "--title", "needle added \(round)"],
                ["search", "needle", "--json"],
            ])
            for result in results { assertOK(result) }
            expected.insert(ids[round])
            expected.insert(results[1].line)
            let during = Set(try results[2].jsonArray().compactMap { $0["id"] as? String })
            XCTAssertTrue(during.isSubset(of: expected), "round \(round): a search beside the writers found \(during)")
            // The screen edits the match of the round before away, and removes an unmatched item.
            if round > 0 {
                var item = try await screen.item(ids[round - 1])
                item.entry.notes = "no longer"
                _ = try await screen.update(item)
                expected.remove(ids[round - 1])
            }
            try await screen.remove(ids[7 - round])
            XCTAssertEqual(try found(), expected, "round \(round)")
            XCTAssertEqual(try found(), expected, "round \(round), the index just stored")
        }
        // (LogCanaryTests checks the stored index for plaintext: reading the file here would drop
        // this process's locks on it.)
    }
}
