import CofferCore
import Foundation

/// The agent's serving half: accepts connections from this user's processes only, answers each
/// request with `AgentService`, and locks — wipes the keys, removes the socket, exits — on
/// `coffer lock`, when idle too long, on SIGTERM, SIGHUP or SIGINT, or when another device's lock
/// message reached the vault (architecture §9), or when its vault file is gone. Messages open only with the keys, so the agent syncs
/// every `syncInterval` seconds itself: a stolen laptop's agent hears the lock within a minute.
final class AgentServer: @unchecked Sendable {
    private let service: AgentService
    private let socketPath: String
    private let listener: AgentSocket
    private let syncInterval: Double
    /// Seconds a client gets to start a request, and then to send the rest of it.
    private let readTimeout: Double
    private var signalSources: [DispatchSourceSignal] = []
    private let stateLock = NSLock()
    private var shuttingDown = false
    private var isSyncing = false

    init(service: AgentService, socketPath: String, listener: AgentSocket, syncInterval: Double,
         readTimeout: Double = AgentServer.defaultReadTimeout) {
        self.service = service
        self.socketPath = socketPath
        self.listener = listener
        self.syncInterval = syncInterval
        self.readTimeout = readTimeout
    }

    /// 30 s: a command sends its request at once; one that waits longer (an editor, a prompt)
    /// finds its connection closed and opens another (`AgentVault.request`).
    static let defaultReadTimeout: Double = 30

    /// `COFFER_AGENT_READ_TIMEOUT` (seconds, for tests), or the default.
    static func readTimeout(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Double {
        guard let value = environment["COFFER_AGENT_READ_TIMEOUT"].flatMap(Double.init), value > 0, value.isFinite else {
            return defaultReadTimeout
        }
        return value
    }

    /// Serves until the agent locks; never returns.
    func run() async -> Never {
        for signalNumber in [SIGTERM, SIGHUP, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in Task { await shutdown() } }
            source.resume()
            signalSources.append(source)
        }
        let acceptor = Thread { [self] in acceptLoop() }
        acceptor.name = "coffer-agent-accept"
        acceptor.start()
        await watch()
    }

    private func acceptLoop() {
        while let connection = listener.accept() {
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    /// One client: requests in order until it hangs up, stays silent for `readTimeout`, or
    /// announces a request over `AgentSocket.maximumRequest` (told why, in one sentence). Another
    /// uid is refused before a byte is read.
    private func serve(_ connection: AgentSocket) {
        guard connection.peerUID == getuid() else { return }
        while true {
            let frame: Data
            switch connection.receiveRequest(within: readTimeout) {
            case .request(let data):
                frame = data
            case .end, .stalled:
                return
            case .tooLarge(let length):
                let refusal = AgentResponse(failure: .init(exitCode: ExitStatus.failure, message: Self.refusal(length)))
                if let data = try? JSONEncoder().encode(refusal) { try? connection.send(data) }
                return
            }
            let request: AgentRequest
            do {
                request = try JSONDecoder().decode(AgentRequest.self, from: frame)
            } catch {
                return
            }
            let response = blocking { await self.service.handle(request) }
            // Committed, not yet answered: the client must not count it as done, and it is there.
            if [.add, .update, .remove].contains(request.operation), response.failure == nil {
                CrashPoint.reach("agent.\(request.operation.rawValue).after-write")
            }
            guard let data = try? JSONEncoder().encode(response), (try? connection.send(data)) != nil else { return }
            if request.operation == .lock {
                Task { await self.shutdown() }
                return
            }
        }
    }

    /// The sentence for a request over `AgentSocket.maximumRequest`: the agent's answer to its
    /// header, or the client's own before sending it.
    static func refusal(_ length: Int) -> String {
        let limit = AgentSocket.maximumRequest >> 20
        return "A request of \(length) bytes is over the agent's limit of \(limit) MiB, so the agent does not take it; "
            + "run `coffer lock` and try again without the agent."
    }

    /// Once a second: the idle limit, a lock another process wrote, and a vault locked by a sync;
    /// and the periodic sync, one at a time.
    private func watch() async -> Never {
        let database = service.vault.database
        var seen = (try? database.externalChangeToken()) ?? 0
        var nextSync = Date().addingTimeInterval(syncInterval)
        while true {
            try? await Task.sleep(for: .seconds(1))
            if syncInterval > 0, Date() >= nextSync, claimSync() {
                nextSync = Date().addingTimeInterval(syncInterval)
                Task {
                    await service.backgroundSync()
                    stateLock.withLock { isSyncing = false }
                }
            }
            if let left = service.idle.secondsLeft(), left <= 0 { await shutdown() }
            if await service.vault.isLocked { await shutdown() }
            // The vault file was removed or moved: nothing left to serve (stat, not open: architecture §8).
            var info = stat()
            if stat(database.path, &info) != 0 { await shutdown() }
            guard let token = try? database.externalChangeToken(), token != seen else { continue }
            seen = token
            if let notice = try? database.status().remoteLock, let unlockedAt = await service.vault.unlockedAt,
               notice.at > unlockedAt {
                await shutdown()
            }
        }
    }

    /// Removes the socket first (no new client finds a locking agent), wipes the keys, exits.
    func shutdown() async -> Never {
        let first = stateLock.withLock {
            defer { shuttingDown = true }
            return !shuttingDown
        }
        if first {
            unlink(socketPath)
            await service.vault.lock()
            exit(0)
        }
        while true { try? await Task.sleep(for: .seconds(60)) }
    }

    /// True when no periodic sync runs, and one is now marked running.
    private func claimSync() -> Bool {
        stateLock.withLock {
            defer { isSyncing = true }
            return !isSyncing
        }
    }

    /// Runs `body` on the concurrency pool and waits for it on this (non-pool) thread.
    private func blocking<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
        let semaphore = DispatchSemaphore(value: 0)
        let box = ResultBox<Result>()
        Task {
            box.value = await body()
            semaphore.signal()
        }
        semaphore.wait()
        return box.value!
    }
}

private final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}
