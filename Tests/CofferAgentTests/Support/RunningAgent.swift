import CofferCore
import Foundation
import XCTest
@testable import CofferAgent

/// An agent server in this process: a vault created (so unlocked) here, its socket in a private
/// (0700) directory under the test's temporary directory, the server's clock in the test's hands,
/// and its termination recorded instead of exiting.
final class RunningAgent: @unchecked Sendable {
    static let passphrase = "correct horse battery staple"

    let root: URL
    let vault: Vault
    let paths: AgentPaths
    let server: AgentServer
    let clock: FakeClock
    private let log = TerminationLog()
    private let lock = NSLock()
    private let stopped = DispatchSemaphore(value: 0)
    private var hasStopped = false

    /// With `ssh`, the server also speaks the ssh-agent protocol at `paths.sshSocket`.
    init(idle: Double = 900, readTimeout: Double = 30, ssh: Bool = false) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-agent-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let vaultPath = root.appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: vaultPath, passphrase: SecureBuffer(copying: Array(Self.passphrase.utf8)),
                                     kdf: .fresh(memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations),
                                     deviceName: "test")
        self.vault = vault
        paths = AgentPaths.forVault(vaultPath, directory: root.appendingPathComponent("coffer").path)
        try paths.prepareDirectory()
        let clock = FakeClock()
        self.clock = clock
        let (socket, log, sshSocket) = (paths.socket, log, ssh ? paths.sshSocket : nil)
        server = try blockingAsync {
            try await AgentServer(vault: vault, socketPath: socket, idleLimit: idle, syncInterval: 0, readTimeout: readTimeout,
                                  sshSocketPath: sshSocket, clock: { clock.now }, terminate: { log.record($0) })
        }
        Task { [server, stopped] in
            await server.run()
            stopped.signal()
        }
    }

    /// What `terminate` was called with, in order.
    var terminations: [AgentLifecycle.Reason] { log.reasons }

    /// True once `run()` has returned, waiting up to `seconds` for it.
    func waitUntilStopped(seconds: Double = 5) -> Bool {
        if lock.withLock({ hasStopped }) { return true }
        guard stopped.wait(timeout: .now() + seconds) == .success else { return false }
        lock.withLock { hasStopped = true }
        return true
    }

    /// A client, connected as a command connects.
    func client(file: StaticString = #filePath, line: UInt = #line) throws -> AgentVault {
        try XCTUnwrap(try AgentVault.connect(paths), "no agent answered", file: file, line: line)
    }

    /// Locks a server the test left running, and removes its files.
    func tearDown() {
        if !waitUntilStopped(seconds: 0) {
            try? AgentVault.connect(paths)?.lock()
            XCTAssertTrue(waitUntilStopped(), "the server did not stop")
        }
        try? FileManager.default.removeItem(at: root)
    }
}

/// The time the server's lifecycle reads, moved by the test.
final class FakeClock: @unchecked Sendable {
    private let lock = NSLock()
    private var date = Date()

    var now: Date { lock.withLock { date } }

    func advance(by seconds: Double) {
        lock.withLock { date = date.addingTimeInterval(seconds) }
    }
}

/// What `terminate` was called with.
private final class TerminationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [AgentLifecycle.Reason] = []

    var reasons: [AgentLifecycle.Reason] { lock.withLock { recorded } }

    func record(_ reason: AgentLifecycle.Reason) { lock.withLock { recorded.append(reason) } }
}

/// Runs `body` on the concurrency pool and waits for it here (a test's synchronous thread).
func blockingAsync<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
    let semaphore = DispatchSemaphore(value: 0)
    let result = ResultHolder<Value>()
    Task {
        do {
            result.set(.success(try await body()))
        } catch {
            result.set(.failure(error))
        }
        semaphore.signal()
    }
    semaphore.wait()
    return try result.get()
}

private final class ResultHolder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Value, Error>?

    func set(_ value: Result<Value, Error>) { lock.withLock { result = value } }

    func get() throws -> Value {
        guard let result = lock.withLock({ result }) else { throw CoreError.locked }
        return try result.get()
    }
}
