import Foundation
import XCTest

/// The built `coffer` executable, run as a user would: arguments, stdin, stdout, stderr, exit code.
///
/// The binary is `.build/debug/coffer` under the package root, found by walking up from this file
/// (or from the test bundle). `COFFER_BINARY` overrides it.
enum CofferBinary {
    static let path: String? = locate()

    private static func locate() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let override = environment["COFFER_BINARY"], !override.isEmpty { return override }
        for start in [URL(fileURLWithPath: #filePath), Bundle.main.bundleURL] {
            var directory = start.deletingLastPathComponent()
            while directory.path != "/" {
                if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                    let binary = directory.appendingPathComponent(".build/debug/coffer").path
                    if FileManager.default.isExecutableFile(atPath: binary) { return binary }
                    break
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// The binary's path, or a failed test that says how to build it.
    static func require(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        guard let path else {
            XCTFail("The coffer binary is missing: build it with `swift build --product coffer` "
                + "(expected at <package root>/.build/debug/coffer, or set COFFER_BINARY).", file: file, line: line)
            throw MissingBinary()
        }
        return path
    }
}

struct MissingBinary: Error, CustomStringConvertible {
    var description: String { "the coffer binary is missing; run `swift build --product coffer` first" }
}

/// What one run of the binary produced.
struct CofferResult {
    var arguments: [String]
    var status: Int32
    var stdout: Data
    var stderr: Data
    var timedOut = false

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }
    /// stdout without its final newline.
    var line: String { out.trimmingCharacters(in: .newlines) }

    var summary: String {
        "coffer \(arguments.joined(separator: " ").prefix(300)) → exit \(status)\nstdout: \(out.prefix(2000))\nstderr: \(err.prefix(2000))"
    }

    /// stdout parsed as JSON.
    func json(file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: stdout, options: [.fragmentsAllowed])
        } catch {
            XCTFail("stdout is not JSON: \(summary)", file: file, line: line)
            throw error
        }
    }

    func jsonObject(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let value = try json(file: file, line: line)
        return try XCTUnwrap(value as? [String: Any], "stdout is not a JSON object: \(summary)", file: file, line: line)
    }

    func jsonArray(file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let value = try json(file: file, line: line)
        return try XCTUnwrap(value as? [[String: Any]], "stdout is not a JSON array of objects: \(summary)", file: file, line: line)
    }
}

enum CofferProcess {
    /// Runs `coffer ARGUMENTS` with `stdin` (an empty, non-terminal stdin when nil) in a clean
    /// environment whose default vault location is inside `home`; kills it after `timeout` seconds.
    static func run(_ arguments: [String], stdin: Data? = nil, home: URL? = nil, environment: [String: String] = [:],
                    timeout: TimeInterval = 60,
                    file: StaticString = #filePath, line: UInt = #line) throws -> CofferResult {
        let binary = try CofferBinary.require(file: file, line: line)
        let result = try run(binary: binary, Invocation(arguments: arguments, stdin: stdin, home: home, environment: environment),
                             timeout: timeout)
        if result.timedOut {
            XCTFail("coffer \(arguments.joined(separator: " ")) ran longer than \(timeout) s and was stopped", file: file, line: line)
        }
        return result
    }

    /// One run's inputs, for `runConcurrently`.
    struct Invocation: Sendable {
        var arguments: [String]
        var stdin: Data? = nil
        var home: URL? = nil
        var environment: [String: String] = [:]
    }

    /// Runs independent invocations side by side (as many at once as there are processors) and
    /// returns their results in order: the KDF makes each unlocking run cost about 0.1 s of CPU.
    static func runConcurrently(_ invocations: [Invocation], timeout: TimeInterval = 60,
                                file: StaticString = #filePath, line: UInt = #line) throws -> [CofferResult] {
        let binary = try CofferBinary.require(file: file, line: line)
        let results = ResultBox(count: invocations.count)
        DispatchQueue.concurrentPerform(iterations: invocations.count) { index in
            results.set(index, Result { try run(binary: binary, invocations[index], timeout: timeout) })
        }
        return try results.values.map { result in
            let value = try result.get()
            if value.timedOut {
                XCTFail("coffer \(value.arguments.joined(separator: " ")) ran longer than \(timeout) s and was stopped",
                        file: file, line: line)
            }
            return value
        }
    }

    private final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [Result<CofferResult, Error>?]
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ value: Result<CofferResult, Error>) { lock.withLock { slots[index] = value } }
        var values: [Result<CofferResult, Error>] { lock.withLock { slots.map { $0! } } }
    }

    private static func run(binary: String, _ invocation: Invocation, timeout: TimeInterval) throws -> CofferResult {
        let arguments = invocation.arguments
        let stdin = invocation.stdin
        let home = invocation.home
        let environment = invocation.environment
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("coffer-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputURL = scratch.appendingPathComponent("stdin")
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        try (stdin ?? Data()).write(to: inputURL)
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let input = try FileHandle(forReadingFrom: inputURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        defer {
            try? input.close()
            try? output.close()
            try? errors.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let homeDirectory = home ?? scratch
        process.environment = [
            "PATH": "/usr/bin:/bin",
            "HOME": homeDirectory.path,
            "XDG_DATA_HOME": homeDirectory.appendingPathComponent("data").path,
            // Each test's agents listen in its own directory (`home/coffer/`), not in the machine's /tmp.
            "XDG_RUNTIME_DIR": homeDirectory.path,
            "LANG": "C.UTF-8",
            "TERM": "dumb",
        ].merging(environment) { _, given in given }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                timedOut = true
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        return CofferResult(arguments: arguments, status: process.terminationStatus,
                            stdout: try Data(contentsOf: outputURL), stderr: try Data(contentsOf: errorURL), timedOut: timedOut)
    }
}

// MARK: - Assertions

/// Exit code `status`.
func assertExit(_ result: CofferResult, _ status: Int32, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(result.status, status, "unexpected exit code: \(result.summary)", file: file, line: line)
}

/// Success: exit 0.
func assertOK(_ result: CofferResult, file: StaticString = #filePath, line: UInt = #line) {
    assertExit(result, 0, file: file, line: line)
}

/// A failure with exit code `status`, nothing on stdout, and ONE line on stderr that contains
/// each of `mentions` (case-insensitive).
func assertError(_ result: CofferResult, _ status: Int32, mentions: [String] = [],
                 file: StaticString = #filePath, line: UInt = #line) {
    assertExit(result, status, file: file, line: line)
    XCTAssertEqual(result.out, "", "an error printed to stdout: \(result.summary)", file: file, line: line)
    let text = result.err
    XCTAssertTrue(text.hasSuffix("\n"), "stderr does not end with a newline: \(result.summary)", file: file, line: line)
    let body = text.hasSuffix("\n") ? String(text.dropLast()) : text
    XCTAssertFalse(body.trimmingCharacters(in: .whitespaces).isEmpty, "stderr is empty: \(result.summary)", file: file, line: line)
    XCTAssertFalse(body.contains("\n"), "stderr is more than one line: \(result.summary)", file: file, line: line)
    for mention in mentions {
        XCTAssertTrue(body.lowercased().contains(mention.lowercased()),
                      "stderr does not mention \"\(mention)\": \(result.summary)", file: file, line: line)
    }
}

/// The exact set of keys of a JSON object.
func assertKeys(_ object: [String: Any], _ expected: Set<String>, _ what: String = "object",
                file: StaticString = #filePath, line: UInt = #line) {
    let keys = Set(object.keys)
    XCTAssertEqual(keys, expected, "\(what) keys: extra \(keys.subtracting(expected).sorted()), "
        + "missing \(expected.subtracting(keys).sorted())", file: file, line: line)
}

/// The key sets of architecture §6.
enum Shapes {
    static let list: Set<String> = ["id", "kind", "title", "username", "origins", "tags", "disabled", "created", "modified", "badges"]
    static let show: Set<String> = list.union(["notes", "history", "last_used"])
    static let showRevealed: Set<String> = show.union(["password", "totp"])
    static let status: Set<String> = ["locked", "items", "pending", "pendingVaultRecords", "conflicts", "lastSync", "lastError", "account", "clockSkewMs", "agent", "recoveryKit", "notCoveredByKit"]
    static let historyEntry: Set<String> = ["created", "patch"]
    static let exported: Set<String> = showRevealed.subtracting(["badges"])
}

/// Stable text of a JSON value, for comparing whole outputs.
func canonicalJSON(_ value: Any) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
}
