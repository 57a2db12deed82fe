import Foundation
import XCTest

/// How the secrets commands' tests reach the keys: an agent started by `coffer unlock` (the
/// commands then run with no passphrase source at all, so a success proves the agent answered), or
/// the passphrase file on each command line. Each setting runs beside another process that keeps
/// adding items to the vault.
enum SecretsSetting: CaseIterable {
    case agent, passphrase

    /// The options a command needs in this setting.
    func options(_ vault: TestVault) -> [String] {
        ["--vault", vault.path] + (self == .passphrase ? ["--passphrase-file", vault.passphraseFile] : [])
    }
}

/// Runs `coffer add` in a loop, from another process each time, until stopped: the vault is written
/// while the command under test reads it.
final class BesideWriter: @unchecked Sendable {
    private let lock = NSLock()
    private var isStopping = false
    private var count = 0
    private let done = DispatchSemaphore(value: 0)

    init(_ vault: TestVault) {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ isStopping }) {
                let result = try? CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile,
                                                     "add", "--title", "beside-\(UUID().uuidString.prefix(8))",
                                                     "--password", "beside"], home: vault.root)
                if result?.status == 0 { lock.withLock { count += 1 } }
            }
            done.signal()
        }
    }

    /// Stops the loop and returns how many items it added (the test checks it wrote at all).
    func stop() -> Int {
        lock.withLock { isStopping = true }
        done.wait()
        return lock.withLock { count }
    }
}

/// Any program run as the tests' children are: arguments, environment, stdin; what it printed.
enum ProgramProcess {
    static func run(_ executable: String, _ arguments: [String], environment: [String: String], stdin: Data = Data(),
                    directory: URL? = nil, timeout: TimeInterval = 60) throws -> CofferResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("program-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let paths = ["stdin", "stdout", "stderr"].map { scratch.appendingPathComponent($0) }
        try stdin.write(to: paths[0])
        for path in paths.dropFirst() { _ = FileManager.default.createFile(atPath: path.path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = try FileHandle(forReadingFrom: paths[0])
        process.standardOutput = try FileHandle(forWritingTo: paths[1])
        process.standardError = try FileHandle(forWritingTo: paths[2])
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                timedOut = true
                break
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        return CofferResult(arguments: [executable] + arguments, status: process.terminationStatus,
                            stdout: try Data(contentsOf: paths[1]), stderr: try Data(contentsOf: paths[2]), timedOut: timedOut)
    }
}

/// The package root (for `Resources/scripts`), found from this file.
enum PackageRoot {
    static var url: URL {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/", !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }

    static func script(_ name: String) -> String { url.appendingPathComponent("Resources/scripts/\(name)").path }
}
