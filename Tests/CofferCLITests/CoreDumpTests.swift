import Foundation
import XCTest

/// No core file, for real: the binary, started from a shell with `ulimit -c unlimited` in an empty
/// directory and left waiting for its passphrase on a pipe kept open, is killed with SIGQUIT and
/// SIGABRT. `sleep`, started the same way and killed the same way, is the control that shows this
/// machine would write a core: a file when `core_pattern` names one, else (a pipe to a handler,
/// whose files this test cannot see) its core limit raised to unlimited where coffer's is 0.
final class CoreDumpTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    func testSIGQUITLeavesNoCoreFile() throws {
        try assertNoCore(after: SIGQUIT)
    }

    func testSIGABRTLeavesNoCoreFile() throws {
        try assertNoCore(after: SIGABRT)
    }

    private func assertNoCore(after signal: Int32, file: StaticString = #filePath, line: UInt = #line) throws {
        let binary = try CofferBinary.require(file: file, line: line)
        let pattern = try String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let patternWritesFiles = !pattern.hasPrefix("|")
        // A pattern without a slash names a file in the dying process's working directory.
        let coreDirectory = pattern.contains("/")
            ? URL(fileURLWithPath: (pattern as NSString).deletingLastPathComponent, relativeTo: directory) : directory!

        // Control: the same shell, the same signal, a program that does not harden itself.
        let controlBefore = try entries(coreDirectory)
        let control = try WaitingProcess(["/bin/sleep", "600"], in: directory)
        let controlLimit = try control.coreLimit()
        XCTAssertEqual(controlLimit, "unlimited", "the shell raised the core limit of what it starts", file: file, line: line)
        let controlEnd = control.kill(signal)
        XCTAssertEqual(controlEnd, .signalled(signal), "sleep died of the signal", file: file, line: line)
        if patternWritesFiles {
            let cores = try entries(coreDirectory).subtracting(controlBefore)
            XCTAssertFalse(cores.isEmpty, "the control left no core file (core_pattern \(pattern)): this test would prove nothing",
                           file: file, line: line)
            for core in cores { try? FileManager.default.removeItem(at: coreDirectory.appendingPathComponent(core)) }
        }

        // coffer, waiting for a passphrase on stdin.
        let before = try entries(coreDirectory)
        let vault = directory.appendingPathComponent("vault/vault.db").path
        let coffer = try WaitingProcess([binary, "--vault", vault, "init", "--kdf-memory", "64", "--kdf-iterations", "3"], in: directory)
        let limit = try coffer.coreLimit(becoming: "0")
        XCTAssertEqual(limit, "0", "coffer set its core limit to 0 (shell gave it \(controlLimit))", file: file, line: line)
        XCTAssertEqual(try coffer.coreLimit(hard: true), "0", "and its hard limit, so nothing it starts can raise it",
                       file: file, line: line)
        XCTAssertTrue(coffer.isReadingAPipe(), "coffer waits for its passphrase", file: file, line: line)
        let end = coffer.kill(signal)
        XCTAssertEqual(end, .signalled(signal), "coffer died of the signal, as the control did: \(coffer.stderr.prefix(2000))",
                       file: file, line: line)
        XCTAssertEqual(coffer.stderr, "", "no crash report (the Swift runtime's prints memory)", file: file, line: line)
        XCTAssertEqual(try entries(coreDirectory).subtracting(before), [], "coffer left a core file", file: file, line: line)
        XCTAssertEqual(try entries(directory).subtracting(controlBefore), [], "nothing in the working directory",
                       file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: vault), "no vault was made", file: file, line: line)
    }

    private func entries(_ url: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: url.path))
    }
}

/// A program started by `/bin/sh` after `ulimit -c unlimited`, in a given directory, with a stdin
/// pipe this side keeps open: it waits until killed.
private final class WaitingProcess {
    enum End: Equatable {
        case signalled(Int32)
        case exited(Int32)
        case hung
    }

    private let process = Process()
    private let input = Pipe()
    private let errors: URL
    /// The program's name as /proc/PID/comm shows it (at most 15 bytes).
    private let name: String

    init(_ command: [String], in directory: URL) throws {
        errors = directory.deletingLastPathComponent().appendingPathComponent("\(directory.lastPathComponent)-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        name = String(URL(fileURLWithPath: command[0]).lastPathComponent.prefix(15))
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // `exec` keeps the pid: the one this side signals and reads /proc of.
        process.arguments = ["-c", "ulimit -c unlimited && exec \"$@\"", "sh"] + command
        process.currentDirectoryURL = directory
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "LANG": "C.UTF-8", "TERM": "dumb"]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: errors)
    }

    var isRunning: Bool { process.isRunning }
    var stderr: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    /// The program's soft core limit in /proc/PID/limits, read once the shell has exec'd it (the
    /// shell's own limit, before its `ulimit`, may be anything): polls while the program starts
    /// until the limit reads `expected`, if given; the last value seen otherwise.
    func coreLimit(becoming expected: String? = nil, hard: Bool = false) throws -> String {
        var last = ""
        for _ in 0..<3000 {
            guard process.isRunning else { break }
            if isPastExec, let limits = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8),
               let row = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max core file size") }) {
                let columns = row.dropFirst("Max core file size".count).split(separator: " ")
                last = columns.count > 1 ? String(columns[hard ? 1 : 0]) : ""
                if expected == nil || last == expected { return last }
            }
            usleep(10_000)
        }
        return last
    }

    /// The process runs the program, no longer the shell (comm stays readable when not dumpable).
    private var isPastExec: Bool {
        let comm = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/comm", encoding: .utf8)
        return comm?.trimmingCharacters(in: .newlines) == name
    }

    /// Whether a thread of the program sleeps in a pipe read (its wchan), polling while it starts.
    func isReadingAPipe() -> Bool {
        for _ in 0..<3000 {
            guard process.isRunning else { return false }
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/task")) ?? []
            for task in tasks {
                let wchan = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/task/\(task)/wchan", encoding: .utf8)
                if wchan?.contains("pipe_read") == true { return true }
            }
            usleep(10_000)
        }
        return false
    }

    /// Sends `signal` and waits for the end; a program still alive 30 s later is killed and hung.
    func kill(_ signal: Int32) -> End {
        Foundation.kill(process.processIdentifier, signal)
        for _ in 0..<3000 where process.isRunning { usleep(10_000) }
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return .hung
        }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        return process.terminationReason == .uncaughtSignal ? .signalled(process.terminationStatus) : .exited(process.terminationStatus)
    }
}
