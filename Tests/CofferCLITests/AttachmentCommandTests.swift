import CofferTestSupport
import Foundation
import XCTest

/// Issue 30's files on the command line, with the built binary: `attach`, `attachments`,
/// `attachment` (to a 0600 file or a pipe, never a terminal), `detach`; the 16 MiB limit in one
/// sentence; the same through a running agent beside other commands.
final class AttachmentCommandTests: XCTestCase {
    private var vaults: [TestVault] = []

    override func tearDown() {
        for vault in vaults { vault.destroy() }
        super.tearDown()
    }

    private func makeVault() throws -> TestVault {
        let vault = try TestVault.make()
        vaults.append(vault)
        return vault
    }

    private func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed)) })
    }

    func testAttachListSaveAndDetach() throws {
        let vault = try makeVault()
        let id = try vault.add("Passport", ["--kind", "identity", "--field", "first_name=Ann"])
        let scan = bytes(1_200_000)
        let path = try vault.writeWorkFile("scan.pdf", scan)
        let attached = try vault.ok(["attach", id, path])
        XCTAssertTrue(attached.err.contains("Kept “scan.pdf” (1200000 bytes)"), attached.summary)
        // From stdin, under a name of its own.
        try vault.ok(["attach", id, "-", "--name", "notes.txt"], stdin: Data("remember the PIN\n".utf8))

        let listed = try vault.ok(["attachments", id, "--json"]).jsonArray()
        XCTAssertEqual(listed.compactMap { $0["name"] as? String }, ["scan.pdf", "notes.txt"])
        XCTAssertEqual(listed.first?["size"] as? Int, scan.count)
        XCTAssertNil(listed.first?["data"], "no contents in a listing")
        let shown = try vault.show(id)
        XCTAssertEqual((shown["attachments"] as? [[String: Any]])?.count, 2, "show --json lists the files")

        // To a pipe: the bytes as they were.
        let piped = try vault.ok(["attachment", id, "scan.pdf"])
        XCTAssertEqual(piped.stdout, scan)
        // To a file: created 0600; an existing one kept unless --force.
        let output = vault.work.appendingPathComponent("saved.pdf").path
        try vault.ok(["attachment", id, "SCAN.PDF", "--output", output])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), scan)
        XCTAssertEqual(try permissions(output), 0o600)
        assertError(try vault.run(["attachment", id, "scan.pdf", "--output", output]), 1, mentions: ["exists", "--force"])
        try vault.ok(["attachment", id, "notes.txt", "--output", output, "--force"])
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "remember the PIN\n")

        try vault.ok(["detach", id, "scan.pdf"])
        XCTAssertEqual(try vault.ok(["attachments", id, "--json"]).jsonArray().compactMap { $0["name"] as? String }, ["notes.txt"])
        assertError(try vault.run(["attachment", id, "scan.pdf"]), 1, mentions: ["no file named"])
        assertError(try vault.run(["detach", id, "scan.pdf"]), 1, mentions: ["no file named"])

        // The vault file never holds the plaintext.
        XCTAssertNil(try vault.vaultContents().range(of: Data("remember the PIN".utf8)))
    }

    /// `--output` at a dangling symlink is refused without --force (`fileExists` follows the link,
    /// so it was replaced), and its target is not created; a file planted at the old fixed
    /// temporary name (`OUT.coffer-tmp`) does not block the write, nor is the vault blamed.
    func testAnOutputAtADanglingSymlinkOrBesideAPlantedTemporaryFile() throws {
        let vault = try makeVault()
        let id = try vault.add("Passport", ["--kind", "identity", "--field", "first_name=Ann"])
        try vault.ok(["attach", id, "-", "--name", "notes.txt"], stdin: Data("remember the PIN\n".utf8))
        let link = vault.work.appendingPathComponent("link.txt").path
        let target = vault.work.appendingPathComponent("nowhere.txt").path
        XCTAssertEqual(symlink(target, link), 0)
        assertError(try vault.run(["attachment", id, "notes.txt", "--output", link]), 1, mentions: ["link.txt exists", "--force"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "the link was followed")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), target, "the link was replaced")
        try vault.ok(["attachment", id, "notes.txt", "--output", link, "--force"])
        XCTAssertEqual(try String(contentsOfFile: link, encoding: .utf8), "remember the PIN\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "--force wrote through the link")

        let output = vault.work.appendingPathComponent("out.txt").path
        let planted = try vault.writeWorkFile("out.txt.coffer-tmp", "planted")
        let written = try vault.run(["attachment", id, "notes.txt", "--output", output])
        assertOK(written)
        XCTAssertFalse(written.err.lowercased().contains("vault"), written.summary)
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "remember the PIN\n")
        XCTAssertEqual(try String(contentsOfFile: planted, encoding: .utf8), "planted")
        // And `export`, which wrote through the same fixed name.
        let exported = vault.work.appendingPathComponent("export.json").path
        _ = try vault.writeWorkFile("export.json.coffer-tmp", "planted")
        try vault.ok(["export", "--format", "json", exported])
        XCTAssertTrue(try String(contentsOfFile: exported, encoding: .utf8).contains("Passport"))
    }

    /// Coffer's JSON export carries the files' bytes; importing it keeps them with their items.
    func testTheJSONExportCarriesFilesAndTheImportKeepsThem() throws {
        let vault = try makeVault()
        let id = try vault.add("Scans", ["--kind", "note", "--notes", "passport and visa"])
        let scan = bytes(700_000, seed: 9)
        try vault.ok(["attach", id, try vault.writeWorkFile("scan.pdf", scan)])
        let export = try vault.ok(["export", "--format", "json", "-"])
        let exported = try export.jsonArray()
        let file = try XCTUnwrap((exported.first?["attachments"] as? [[String: Any]])?.first)
        XCTAssertEqual(file["name"] as? String, "scan.pdf")
        XCTAssertEqual((file["data"] as? String).flatMap { Data(base64Encoded: $0) }, scan)

        let other = try makeVault()
        let imported = try other.ok(["import", "--format", "json", try other.writeWorkFile("backup.json", export.stdout)])
        XCTAssertTrue(imported.err.contains("Kept 1 file(s)"), imported.summary)
        XCTAssertEqual(try other.ok(["attachment", id, "scan.pdf"]).stdout, scan)
        // `show --json`'s shape lists files without their bytes: the import says so and keeps the item.
        let listedOnly = try other.writeWorkFile("shown.json", try JSONSerialization.data(withJSONObject: [try vault.show(id)].map {
            var object = $0
            object["id"] = nil
            object["badges"] = nil
            return object
        }))
        let third = try makeVault()
        let result = try third.ok(["import", "--format", "json", listedOnly])
        XCTAssertTrue(result.err.contains("1 file(s) were listed without their bytes"), result.summary)
    }

    func testAFileOver16MiBIsRefusedInOneSentence() throws {
        let vault = try makeVault()
        let id = try vault.add("Big")
        let path = try vault.writeWorkFile("big.iso", Data(count: (16 << 20) + 1))
        let result = try vault.run(["attach", id, path])
        assertError(result, 1, mentions: ["16777217 bytes", "at most 16 MiB"])
        XCTAssertEqual(result.err.split(separator: "\n").count, 1, result.summary)
        XCTAssertEqual(try vault.ok(["attachments", id, "--json"]).jsonArray().count, 0)
        // Exactly 16 MiB is kept.
        let limit = try vault.writeWorkFile("limit.bin", bytes(16 << 20))
        try vault.ok(["attach", id, limit])
    }

    /// Through the agent, with other commands writing beside it: a 16 MiB file goes through the
    /// socket and back byte for byte.
    func testThroughTheAgentBesideOtherCommands() throws {
        let vault = try makeVault()
        let id = try vault.add("Shared")
        try vault.ok(["unlock"])
        defer { _ = try? vault.run(["lock"], unlock: false) }
        let big = bytes(16 << 20, seed: 3)
        let path = try vault.writeWorkFile("big.bin", big)
        let results = try vault.runAll([["attach", id, path]] + (1...3).map { ["add", "--title", "beside \($0)"] }, unlock: false)
        for result in results { assertOK(result) }
        let back = try vault.run(["attachment", id, "big.bin"], unlock: false)
        assertOK(back)
        XCTAssertEqual(back.stdout.count, big.count)
        XCTAssertEqual(back.stdout, big)
        XCTAssertEqual(try vault.run(["list", "--json"], unlock: false).jsonArray().count, 4)
    }
}
