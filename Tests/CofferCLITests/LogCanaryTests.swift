import CofferTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// No secret in logs or stray files: the real binary, used as a person would on three vaults
/// (init, add, edit, show, search, history, export, import into another vault, account signup,
/// sync, join on a second device, sync) with `COFFER_LOG=trace` and a private TMPDIR. Every
/// field of every item holds a unique canary; then every process's stderr, every file left under
/// TMPDIR and under the three vaults' homes (but the export the user asked for and the files the
/// user wrote the passphrases in), and the server's records are scanned for each canary in every
/// encoding. Controls: the scanner finds the canaries in `show --reveal`'s stdout and in the
/// export, and the logs were really on (the sync engine's lines are in stderr).
final class LogCanaryTests: XCTestCase {
    private var vaults: [TestVault] = []
    private var temporary: URL!
    private var results: [CofferResult] = []
    private var canaries: [String] = []

    override func setUpWithError() throws {
        temporary = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-log-canary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    override func tearDown() {
        vaults.forEach { $0.destroy() }
        try? FileManager.default.removeItem(at: temporary)
        super.tearDown()
    }

    private func canary(base32: Bool = false) -> String {
        let value = base32 ? CanaryScanner.randomBase32Canary() : CanaryScanner.randomCanary()
        canaries.append(value)
        return value
    }

    /// `add`/`edit` options with a new canary in every field.
    private func fieldOptions() -> [String] {
        ["--title", "Title \(canary())", "--username", canary(), "--password", canary(), "--notes", "notes \(canary())",
         "--origin", "https://\(canary()).example/login", "--tag", canary(), "--totp", canary(base32: true)]
    }

    private func device() throws -> TestVault {
        let vault = try TestVault(passphrase: "pass \(canary())")
        vaults.append(vault)
        return vault
    }

    /// Runs coffer on `vault` with trace logs and the private TMPDIR, keeping its output.
    @discardableResult
    private func run(_ vault: TestVault, _ arguments: [String], unlock: Bool = true, expect status: Int32 = 0,
                     file: StaticString = #filePath, line: UInt = #line) throws -> CofferResult {
        let global = ["--vault", vault.path] + (unlock ? ["--passphrase-file", vault.passphraseFile] : [])
        let result = try CofferProcess.run(global + arguments, home: vault.root,
                                           environment: ["COFFER_LOG": "trace", "TMPDIR": temporary.path], file: file, line: line)
        results.append(result)
        assertExit(result, status, file: file, line: line)
        return result
    }

    func testNoCanaryInLogsTemporaryFilesOrTheServer() throws {
        let server = try TestKinto.url()
        let a = try device(), c = try device()
        let account = (user: "canary-\(UUID().uuidString.lowercased())", password: "pw-\(canary())")
        let accountPasswordFile = try a.writeWorkFile("account-password", account.password + "\n")
        let accountOptions = ["--server", server.absoluteString, "--user", account.user, "--password-file", accountPasswordFile]

        // Device A: a vault with three items, one edited (its old fields go to history).
        try run(a, ["init"] + TestVault.fastKDF)
        let ids = try (0..<3).map { _ in try run(a, ["add"] + fieldOptions()).line }
        try run(a, ["edit", ids[0]] + fieldOptions())
        let revealed = try run(a, ["show", ids[0], "--reveal"])
        try run(a, ["show", ids[1], "--json", "--reveal"])
        try run(a, ["history", ids[0], "--reveal"])
        try run(a, ["list", "--json"])
        let title = String(try XCTUnwrap(a.show(ids[2])["title"] as? String).dropFirst("Title ".count))
        let found = try run(a, ["search", title, "--json"]).jsonArray()
        XCTAssertEqual(found.map { $0["id"] as? String }, [ids[2]])

        // Export, and import into vault C.
        let export = a.work.appendingPathComponent("export.json").path
        try run(a, ["export", export])
        try run(c, ["init"] + TestVault.fastKDF)
        try run(c, ["import", export])
        XCTAssertEqual(try c.itemCount(), 3)

        // Sync: A signs up, adds, syncs; B joins, edits, syncs; A syncs again.
        try run(a, ["account", "signup"] + accountOptions, unlock: false)
        let late = try run(a, ["add"] + fieldOptions()).line
        try run(a, ["sync"], unlock: false)
        let b = try TestVault(passphrase: a.passphrase)
        vaults.append(b)
        let bPasswordFile = try b.writeWorkFile("account-password", account.password + "\n")
        try run(b, ["join", "--server", server.absoluteString, "--user", account.user, "--password-file", bPasswordFile])
        try run(b, ["edit", late] + fieldOptions())
        try run(b, ["sync", "--unlock"])
        try run(a, ["sync", "--unlock"])
        try run(a, ["account", "status"], unlock: false)
        try run(b, ["status", "--json"], unlock: false)
        XCTAssertEqual(try a.itemCount(), 4)
        XCTAssertEqual(try a.show(late, reveal: true)["password"] as? String, try b.show(late, reveal: true)["password"] as? String)

        XCTAssertEqual(Set(canaries).count, canaries.count, "canaries are unique")
        let scanner = CanaryScanner(canaries: canaries)
        // The account password is stored in the vault by design (it opens only ciphertext).
        let fileScanner = CanaryScanner(canaries: canaries.filter { !account.password.hasSuffix($0) })

        // Controls: the scanner finds what is meant to be there, and the logs were on.
        XCTAssertFalse(scanner.scan(revealed.stdout, file: "show --reveal").isEmpty, "the revealed password is found")
        XCTAssertFalse(scanner.scan(try Data(contentsOf: URL(fileURLWithPath: export)), file: "export").isEmpty,
                       "the export holds the canaries")
        let logs = results.map(\.err).joined()
        XCTAssertTrue(logs.contains("coffer.sync"), "trace logs reached stderr:\n\(logs.prefix(3000))")

        // Logs: every process's stderr.
        var hits: [CanaryScanner.Hit] = []
        for (index, result) in results.enumerated() {
            let command = result.arguments.filter { !$0.hasPrefix("/") && !$0.hasPrefix("--vault") && !$0.hasPrefix("--passphrase") }
            hits += scanner.scan(result.stderr, file: "stderr of #\(index) coffer \(command.prefix(2).joined(separator: " "))")
        }
        // Files: TMPDIR, and each device's home (vault, -wal, -shm, anything else) but the user's own files.
        let userFiles = Set([export, accountPasswordFile, bPasswordFile] + vaults.map(\.passphraseFile))
        var scanned = 0
        for (root, scanner) in [(temporary!, scanner)] + vaults.map({ ($0.root, fileScanner) }) {
            for file in try Self.files(under: root) where !userFiles.contains(file.path) {
                scanned += 1
                hits += scanner.scan(try Data(contentsOf: file), file: file.path)
            }
        }
        XCTAssertGreaterThanOrEqual(scanned, 3, "the three vault files were scanned")

        // The server: every record of the account.
        for collection in ["items", "keystores"] {
            let url = server.appendingPathComponent("buckets/default/collections/\(collection)/records")
            let (data, status) = try SyncCommandServer.send(URLRequest(url: url), account: account)
            XCTAssertEqual(status, 200)
            XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("\"id\""), "\(collection) holds records")
            hits += scanner.scan(data, file: "server \(collection)")
        }
        XCTAssertEqual(hits.count, 0, "canaries found: \(hits.prefix(20))")
    }

    /// Every regular file under `root`, at any depth.
    private static func files(under root: URL) throws -> [URL] {
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return try walk.compactMap { $0 as? URL }.filter { try $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true }
    }
}
