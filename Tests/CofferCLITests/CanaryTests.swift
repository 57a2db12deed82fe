import CofferCore
import Foundation
import XCTest

/// No plaintext reaches the disk: 50 items carry a unique random canary in every field (title,
/// username, password, notes, TOTP, origin, tag, and history), and the vault's files are scanned
/// for each canary in every encoding — once while a WAL file exists, once after every process has
/// exited. The scanner itself must find canaries planted in a scratch file.
final class CanaryTests: XCTestCase {
    private static let itemCount = 50
    private static let importedCount = 40
    private static let editedCount = 10
    private static let removedCount = 2

    private struct Fields {
        var title, username, password, notes, totp, origin, tag: String

        static func random() -> Fields {
            Fields(title: CanaryScanner.randomCanary(), username: CanaryScanner.randomCanary(),
                   password: CanaryScanner.randomCanary(), notes: CanaryScanner.randomCanary(),
                   totp: CanaryScanner.randomBase32Canary(), origin: CanaryScanner.randomCanary(), tag: CanaryScanner.randomCanary())
        }

        var canaries: [String] { [title, username, password, notes, totp, origin, tag] }

        var options: [String] {
            ["--title", "Title \(title) ☕", "--username", username, "--password", password, "--notes", "notes: \(notes)\nend",
             "--totp", totp, "--origin", "https://\(origin).example/login", "--tag", tag]
        }

        func exportObject(id: String, history: Fields) -> [String: Any] {
            [
                "id": id, "title": "Title \(title) ☕", "username": username, "password": password,
                "notes": "notes: \(notes)\nend", "totp": totp, "origins": ["https://\(origin).example/login"], "tags": [tag],
                "created": "2024-01-02T03:04:05.000Z", "modified": "2024-02-03T04:05:06.000Z",
                "history": [["created": "2024-02-03T04:05:06.000Z",
                             "patch": ["username": history.username, "password": history.password,
                                       "notes": history.notes, "totp": history.totp]]],
            ]
        }
    }

    // MARK: The scanner can fail

    func testScannerFindsCanariesPlantedInEveryEncoding() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-canary-control-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let canaries = (0..<4).map { _ in CanaryScanner.randomCanary() }
        let scanner = CanaryScanner(canaries: canaries)

        // Plain text in a scratch file.
        try Data("some text \(canaries[0]) more text".utf8).write(to: directory.appendingPathComponent("plain.txt"))
        var (files, hits) = try scanner.scan(directory: directory)
        XCTAssertEqual(files, ["plain.txt"])
        XCTAssertEqual(hits.map(\.canary), [canaries[0]])
        XCTAssertEqual(hits.map(\.encoding), ["UTF-8"])

        // Every encoding, embedded in random bytes: base64 with 0, 1 and 2 leading bytes.
        let canary = canaries[1]
        var blob = Data((0..<1000).map { _ in UInt8.random(in: 0...255) })
        func plant(_ bytes: Data) {
            blob.append(bytes)
            blob.append(contentsOf: (0..<37).map { _ in UInt8.random(in: 0...255) })
        }
        plant(Data(canary.utf8.map { String(format: "%02x", $0) }.joined().utf8))
        plant(Data(canary.utf8.map { String(format: "%02X", $0) }.joined().utf8))
        plant(Data(canary.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        plant(Data(canary.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        for alignment in 0..<3 {
            let prefix = (0..<alignment).map { _ in UInt8.random(in: 0...255) }
            let suffix = (0..<Int.random(in: 0...2)).map { _ in UInt8.random(in: 0...255) }
            plant(Data((Data(prefix) + Data(canary.utf8) + Data(suffix)).base64EncodedString().utf8))
        }
        try blob.write(to: directory.appendingPathComponent("encoded.bin"))
        (files, hits) = try scanner.scan(directory: directory)
        let found = Set(hits.filter { $0.file == "encoded.bin" && $0.canary == canary }.map(\.encoding))
        for encoding in ["hex", "HEX", "UTF-16LE", "UTF-16BE", "base64+0", "base64+1", "base64+2"] {
            XCTAssertTrue(found.contains(encoding), "the scanner missed the \(encoding) form; found \(found.sorted())")
        }
        XCTAssertFalse(hits.contains { $0.canary == canaries[2] || $0.canary == canaries[3] }, "\(hits)")
    }

    func testBase64FragmentsAreTheCharactersOnlyTheCanaryDetermines() {
        // "abc" at alignment 0 is "YWJj"; after one byte, only the characters of bits 12..29 are fixed.
        XCTAssertEqual(CanaryScanner.base64Fragment(of: Array("abc".utf8), alignment: 0), "YWJj")
        for alignment in 1..<3 {
            let fragment = CanaryScanner.base64Fragment(of: Array("abcdefghij".utf8), alignment: alignment)
            for prefix in [[UInt8](repeating: 0, count: alignment), [UInt8](repeating: 0xFF, count: alignment)] {
                for suffix in [[UInt8](), [0x00], [0xFF, 0xFF]] {
                    let encoded = Data(prefix + Array("abcdefghij".utf8) + suffix).base64EncodedString()
                    XCTAssertTrue(encoded.contains(fragment), "\(fragment) not in \(encoded)")
                }
            }
        }
    }

    // MARK: The vault's files

    /// Copies `directory` with `cp` in a child process and returns the copy. Reading the vault's
    /// files from this process would close a descriptor on them, and closing any descriptor drops
    /// every POSIX lock this process holds on the file — the open connection's lock that keeps
    /// the -wal file from being checkpointed and deleted.
    private static func copyOutOfProcess(_ directory: URL, into parent: URL) throws -> URL {
        let copy = parent.appendingPathComponent("snapshot-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/cp")
        process.arguments = ["-R", directory.path, copy.path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "cp failed")
        return copy
    }

    func testNoCanaryReachesTheVaultFilesInAnyEncoding() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }

        // Hold a connection open from this process, as a running `coffer` screen would: the
        // commands' writes then stay in the -wal file instead of being checkpointed away at exit.
        var holder: Vault? = try Vault.open(at: vault.path)
        XCTAssertNotNil(holder)

        var fields = (0..<Self.itemCount).map { _ in Fields.random() }
        let importedHistory = (0..<Self.importedCount).map { _ in Fields.random() }
        let editedIndexes = Array(Self.importedCount - Self.editedCount / 2..<Self.importedCount + Self.editedCount / 2)
        let replacements = editedIndexes.map { _ in Fields.random() }
        let canaries = fields.flatMap(\.canaries) + importedHistory.flatMap { [$0.username, $0.password, $0.notes, $0.totp] }
            + replacements.flatMap(\.canaries)
        XCTAssertEqual(Set(canaries).count, canaries.count, "canaries are unique")
        let scanner = CanaryScanner(canaries: canaries)
        let walPath = vault.path + "-wal"

        /// Scans the vault's directory as it is now, expecting a -wal file.
        func scanWithWAL(_ moment: String) throws {
            let walSize = (try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? NSNumber)?.intValue ?? 0
            XCTAssertGreaterThan(walSize, 0, "expected a -wal file \(moment)")
            let (files, hits) = try scanner.scan(directory: try Self.copyOutOfProcess(vault.directory, into: vault.work))
            XCTAssertTrue(files.contains("vault.db-wal"), "\(files)")
            XCTAssertEqual(hits.count, 0, "canaries on disk \(moment): \(hits.prefix(20))")
        }

        // 40 items through import (each with a history entry full of canaries), 10 through add.
        let importedIDs = (0..<Self.importedCount).map { _ in UUID().uuidString.lowercased() }
        let importObjects = (0..<Self.importedCount).map { fields[$0].exportObject(id: importedIDs[$0], history: importedHistory[$0]) }
        let importFile = try vault.writeWorkFile("canaries.json", try JSONSerialization.data(withJSONObject: importObjects))
        assertOK(try vault.run(["import", "--format", "json", importFile]))
        try FileManager.default.removeItem(atPath: importFile)
        let added = try vault.addAll((Self.importedCount..<Self.itemCount).map { Array(fields[$0].options.dropFirst()) })
        let ids = importedIDs + added

        // 1. Right after the adds, while their pages are still in the WAL.
        try scanWithWAL("right after the adds")
        XCTAssertEqual(try vault.itemCount(), Self.itemCount)

        // Edits: every field gets a new canary, the old entry fields move into history.
        _ = try vault.okAll(zip(editedIndexes, replacements).map { ["edit", ids[$0]] + $1.options })
        for (index, next) in zip(editedIndexes, replacements) { fields[index] = next }
        let sample = try vault.show(ids[editedIndexes[0]], reveal: true)
        XCTAssertEqual(sample["password"] as? String, fields[editedIndexes[0]].password)
        XCTAssertEqual((sample["history"] as? [Any])?.count, 2, "the edited item's history holds the imported and the edited entry")
        _ = try vault.okAll((0..<Self.removedCount).map { ["rm", "--purge", ids[$0]] })
        XCTAssertEqual(try vault.itemCount(), Self.itemCount - Self.removedCount)

        // 2. After the edits and removals, the WAL still there.
        try scanWithWAL("after edits and removals")

        // 3. After every process has closed the vault.
        holder = nil
        let (files, hits) = try scanner.scan(directory: vault.directory)
        XCTAssertTrue(files.contains("vault.db"), "\(files)")
        XCTAssertEqual(hits.count, 0, "canaries on disk after exit: \(hits.prefix(20))")

        // The items are still all there and readable: the scan looked at real data.
        let listed = try vault.list()
        XCTAssertEqual(listed.count, Self.itemCount - Self.removedCount)
        XCTAssertTrue(listed.contains { ($0["title"] as? String)?.contains(fields[Self.itemCount - 1].title) == true })
    }
}
