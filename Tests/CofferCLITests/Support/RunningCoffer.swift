import Foundation
import XCTest

/// The built `coffer` running in the background, as a person at another terminal would run it:
/// its stdin is a pipe the test answers on later, its output goes to files the test reads as it
/// goes (an invitation waiting for a claim, a join waiting to be allowed).
final class RunningCoffer {
    let arguments: [String]
    private let process = Process()
    private let input = Pipe()
    private let scratch: URL
    private let outputURL: URL
    private let errorURL: URL

    /// `binary` defaults to the built `coffer`; `environment` is added to the clean one.
    init(_ arguments: [String], home: URL, binary: String? = nil, environment: [String: String] = [:],
         file: StaticString = #filePath, line: UInt = #line) throws {
        self.arguments = arguments
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-bg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        outputURL = scratch.appendingPathComponent("stdout")
        errorURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: try binary ?? CofferBinary.require(file: file, line: line))
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                               "LANG": "C.UTF-8", "TERM": "dumb"].merging(environment) { _, given in given }
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: scratch)
    }

    var err: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }
    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Waits until stderr holds `text`; fails the test (and returns false) after `timeout`.
    @discardableResult
    func waitFor(_ text: String, timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if err.contains(text) { return true }
            if !process.isRunning, !err.contains(text) { break }
            usleep(50_000)
        }
        if err.contains(text) { return true }
        XCTFail("coffer \(arguments.joined(separator: " ")) never wrote \(text.debugDescription); stderr: \(err)", file: file, line: line)
        return false
    }

    /// Writes `line` to stdin and closes it (a non-terminal stdin is read to its end).
    func answer(_ line: String) {
        write(line + "\n")
        try? input.fileHandleForWriting.close()
    }

    /// Writes `line` to stdin and keeps it open, as a script that goes on talking to it would.
    func say(_ line: String) {
        write(line + "\n")
    }

    /// Writes `text` to stdin. A process that already ended (a regression that exits before its
    /// question) gets nothing: the write fails with EPIPE and the SIGPIPE it raises, held back on
    /// this thread, is taken before it could end the test process.
    private func write(_ text: String) {
        var pipeSignal = sigset_t()
        var previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(input.fileHandleForWriting.fileDescriptor, $0.baseAddress, $0.count) }
        if written < 0 && errno == EPIPE {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipeSignal, nil, &now)
        }
    }

    /// Closes stdin with no line written: the end of input, a question left unanswered.
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for the exit (SIGTERM after `timeout`) and returns what it printed.
    func finish(timeout: TimeInterval = 60) -> CofferResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        let timedOut = process.isRunning
        if timedOut { process.terminate() }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        return CofferResult(arguments: arguments, status: process.terminationStatus,
                            stdout: (try? Data(contentsOf: outputURL)) ?? Data(),
                            stderr: (try? Data(contentsOf: errorURL)) ?? Data(), timedOut: timedOut)
    }
}
