import Foundation
import XCTest

/// A vault in a fresh temporary directory, created with `coffer init` and the fastest allowed KDF
/// (64 MiB, 3 iterations: each unlock takes about 0.1 s), plus helpers that run commands on it.
///
/// Layout: `root/vault/vault.db` is the vault (its directory holds nothing else), `root/work/`
/// holds passphrase files, import and export files.
final class TestVault: @unchecked Sendable {
    static let fastKDF = ["--kdf-memory", "64", "--kdf-iterations", "3"]

    let root: URL
    let directory: URL
    let work: URL
    let path: String
    let passphrase: String
    let passphraseFile: String

    /// Creates the directories and passphrase file but no vault (for `init` tests).
    init(passphrase: String = "correct horse \(UUID().uuidString.prefix(8))") throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-cli-\(UUID().uuidString)")
        directory = root.appendingPathComponent("vault")
        work = root.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("vault.db").path
        self.passphrase = passphrase
        passphraseFile = work.appendingPathComponent("passphrase").path
        try Self.writePrivate(Data((passphrase + "\n").utf8), to: passphraseFile)
    }

    /// Writes a file only its owner may read, as a user keeps a passphrase file (coffer refuses
    /// one that others can read).
    static func writePrivate(_ contents: Data, to path: String) throws {
        try contents.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
    }

    /// A new vault, initialised through `coffer init --passphrase-file`.
    static func make(file: StaticString = #filePath, line: UInt = #line) throws -> TestVault {
        let vault = try TestVault()
        let result = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "init"] + fastKDF,
                                           home: vault.root, file: file, line: line)
        assertOK(result, file: file, line: line)
        return vault
    }

    func destroy() {
        try? FileManager.default.removeItem(at: root)
    }

    // MARK: Running

    /// `coffer --vault PATH [--passphrase-file F] ARGUMENTS`.
    func run(_ arguments: [String], unlock: Bool = true, stdin: Data? = nil,
             file: StaticString = #filePath, line: UInt = #line) throws -> CofferResult {
        let global = ["--vault", path] + (unlock ? ["--passphrase-file", passphraseFile] : [])
        return try CofferProcess.run(global + arguments, stdin: stdin, home: root, file: file, line: line)
    }

    /// Runs independent commands side by side; results in the order given.
    func runAll(_ commands: [[String]], unlock: Bool = true, stdin: Data? = nil,
                file: StaticString = #filePath, line: UInt = #line) throws -> [CofferResult] {
        let global = ["--vault", path] + (unlock ? ["--passphrase-file", passphraseFile] : [])
        return try CofferProcess.runConcurrently(commands.map {
            CofferProcess.Invocation(arguments: global + $0, stdin: stdin, home: root)
        }, file: file, line: line)
    }

    /// Runs independent commands side by side and expects exit 0 from each.
    func okAll(_ commands: [[String]], file: StaticString = #filePath, line: UInt = #line) throws -> [CofferResult] {
        let results = try runAll(commands, file: file, line: line)
        for result in results { assertOK(result, file: file, line: line) }
        return results
    }

    /// Adds items side by side (`[title] + options` each); returns their ids in order.
    func addAll(_ items: [[String]], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let results = try okAll(items.map { ["add", "--title"] + $0 }, file: file, line: line)
        let ids = results.map(\.line)
        for id in ids { assertItemID(id, file: file, line: line) }
        return ids
    }

    /// `show --json` of several items at once.
    func showAll(_ ids: [String], reveal: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try okAll(ids.map { ["show", $0, "--json"] + (reveal ? ["--reveal"] : []) }, file: file, line: line)
            .map { try $0.jsonObject(file: file, line: line) }
    }

    /// Runs the command and expects exit 0.
    @discardableResult
    func ok(_ arguments: [String], stdin: Data? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> CofferResult {
        let result = try run(arguments, stdin: stdin, file: file, line: line)
        assertOK(result, file: file, line: line)
        return result
    }

    /// `add --title TITLE OPTIONS…`; returns the printed id (checked to be a UUID v4).
    func add(_ title: String, _ options: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try ok(["add", "--title", title] + options, file: file, line: line)
        let id = result.line
        assertItemID(id, file: file, line: line)
        return id
    }

    func show(_ id: String, reveal: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try ok(["show", id, "--json"] + (reveal ? ["--reveal"] : []), file: file, line: line).jsonObject(file: file, line: line)
    }

    func list(_ options: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try ok(["list", "--json"] + options, file: file, line: line).jsonArray(file: file, line: line)
    }

    func search(_ query: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try ok(["search", query, "--json"], file: file, line: line).jsonArray(file: file, line: line)
    }

    /// `status --json`, run without any passphrase source and with an empty stdin.
    func status(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try run(["status", "--json"], unlock: false, file: file, line: line)
        assertOK(result, file: file, line: line)
        return try result.jsonObject(file: file, line: line)
    }

    func itemCount(file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        try XCTUnwrap(try status(file: file, line: line)["items"] as? Int, file: file, line: line)
    }

    // MARK: Files

    /// Writes `contents` to `work/NAME` and returns its path.
    @discardableResult
    func writeWorkFile(_ name: String, _ contents: Data) throws -> String {
        let path = work.appendingPathComponent(name).path
        try Self.writePrivate(contents, to: path)
        return path
    }

    func writeWorkFile(_ name: String, _ text: String) throws -> String {
        try writeWorkFile(name, Data(text.utf8))
    }

    func vaultBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// The vault file without the SQLite header counters that every open bumps (GRDB's WAL set-up
    /// creates and drops a table): file change counter, schema cookie, version-valid-for.
    /// Equal contents mean no command changed the vault.
    func vaultContents() throws -> Data {
        var bytes = try vaultBytes()
        for range in [24..<28, 40..<44, 92..<96] where bytes.count >= range.upperBound {
            bytes.replaceSubrange(range, with: Data(count: range.count))
        }
        return bytes
    }
}

/// Ids are client-generated UUID v4 (architecture §2).
func assertItemID(_ id: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertNotNil(UUID(uuidString: id), "not a UUID: \(id)", file: file, line: line)
    XCTAssertEqual(id.count, 36, file: file, line: line)
    if id.count == 36 {
        XCTAssertEqual(id[id.index(id.startIndex, offsetBy: 14)], "4", "not a version 4 UUID: \(id)", file: file, line: line)
    }
}

/// POSIX permission bits of a path.
func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

func utf8(_ text: String) -> Data { Data(text.utf8) }
