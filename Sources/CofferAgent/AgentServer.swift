import CofferCore
import Foundation

/// The agent's serving half: accepts connections from this user's processes only, answers each
/// request with `AgentService`, and tells `AgentLifecycle` what happens — requests, a tick a
/// second with what it sees of the vault, signals, the end of a sync — then performs the actions
/// it returns: the periodic sync, and the lock (architecture §12). Messages open only with the
/// keys, so the agent syncs itself: a stolen laptop's agent hears a lock within `syncInterval`.
public final class AgentServer: @unchecked Sendable {
    private let service: AgentService
    private let socketPath: String
    private let listener: AgentSocket
    /// The ssh-agent protocol's socket and its answers (`AgentServer+SSH.swift`); nil when not asked for.
    let ssh: (path: String, listener: AgentSocket, service: SSHAgentService)?
    /// Seconds a client gets to start a request, and then to send the rest of it.
    let readTimeout: Double
    private let clock: @Sendable () -> Date
    private let terminate: @Sendable (AgentLifecycle.Reason) -> Void
    private let stateLock = NSLock()
    private var lifecycle: AgentLifecycle
    private var signalSources: [DispatchSourceSignal] = []
    private let stopped: AsyncStream<Void>
    private let markStopped: AsyncStream<Void>.Continuation

    /// Listens at `socketPath` (replacing a stale socket) for `vault`, which must be unlocked.
    ///
    /// - Parameters:
    ///   - sshSocketPath: where to speak the ssh-agent protocol with the vault's SSH keys (replacing
    ///     a stale socket); nil for no SSH socket.
    ///   - clock: the time the idle limit and the sync interval are measured in.
    ///   - terminate: called once the socket is gone and the keys are wiped; the agent process
    ///     exits there (the default). A test's server returns from `run()` when it returns.
    public init(vault: Vault, socketPath: String, idleLimit: Double, syncInterval: Double,
                readTimeout: Double = AgentServer.defaultReadTimeout, sshSocketPath: String? = nil,
                clock: @escaping @Sendable () -> Date = { Date() },
                terminate: @escaping @Sendable (AgentLifecycle.Reason) -> Void = { _ in exit(0) }) async throws {
        guard let unlockedAt = await vault.unlockedAt else { throw CoreError.locked }
        service = AgentService(vault: vault)
        self.socketPath = socketPath
        listener = try AgentSocket.listen(at: socketPath)
        let index = service.index
        ssh = try sshSocketPath.map { ($0, try AgentSocket.listen(at: $0), SSHAgentService(vault: vault, index: index)) }
        self.readTimeout = readTimeout
        self.clock = clock
        self.terminate = terminate
        lifecycle = AgentLifecycle(idleLimit: idleLimit, syncInterval: syncInterval, unlockedAt: unlockedAt, now: clock())
        let stream = AsyncStream.makeStream(of: Void.self)
        stopped = stream.stream
        markStopped = stream.continuation
    }

    /// 30 s: a command sends its request at once; one that waits longer (an editor, a prompt)
    /// finds its connection closed and opens another (`AgentVault.request`).
    public static let defaultReadTimeout: Double = 30

    /// `COFFER_AGENT_READ_TIMEOUT` (seconds, for tests), or the default.
    public static func readTimeout(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Double {
        guard let value = environment["COFFER_AGENT_READ_TIMEOUT"].flatMap(Double.init), value > 0, value.isFinite else {
            return defaultReadTimeout
        }
        return value
    }

    /// Serves until the agent locks, which `signals` also make it do; returns only if `terminate` does.
    public func run(lockingOn signals: [Int32] = []) async {
        for signalNumber in signals {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in perform(record(.signal(signalNumber))) }
            source.resume()
            signalSources.append(source)
        }
        let acceptor = Thread { [self] in acceptLoop() }
        acceptor.name = "coffer-agent-accept"
        acceptor.start()
        startSSH()
        await watch()
        for await _ in stopped {}
    }

    private func acceptLoop() {
        while let connection = listener.accept() {
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    /// One client: requests in order until it hangs up, stays silent for `readTimeout`, sends a
    /// frame that is no request, or announces a request over `AgentSocket.maximumRequest` (told
    /// why, in one sentence). Another uid is refused before a byte is read.
    private func serve(_ connection: AgentSocket) {
        guard connection.peerUID == getuid() else { return }
        while true {
            var frame: Data
            switch connection.receiveRequest(within: readTimeout) {
            case .request(let data):
                frame = data
            case .end, .stalled:
                return
            case .tooLarge(let length):
                if let refusal = Self.encoded(.failure(AgentFailure(.other, Self.refusal(length)))) { try? connection.send(refusal) }
                return
            }
            let decoded = try? JSONDecoder().decode(AgentRequest.self, from: frame)
            wipe(&frame)
            guard let request = decoded else { return }
            if let event = AgentLifecycle.Event(arrivalOf: request) { perform(record(event)) }
            let status = self.status()
            let response = blocking { await self.service.handle(request, status: status) }
            switch (request, response) {
            case (.add, .item), (.update, .saved), (.remove, .done):
                // Committed, not yet answered: the client must not count it as done, and it is there.
                CrashPoint.reach("agent.\(request.operation.rawValue).after-write")
            default:
                break
            }
            let isAnswered = Self.encoded(response).map { (try? connection.send($0)) != nil } ?? false
            if case .lock = request {
                // Once answered; a client gone before it read the answer asked to lock all the same.
                perform(record(.lockRequested))
                return
            }
            guard isAnswered else { return }
        }
    }

    /// The sentence for a request over `AgentSocket.maximumRequest`: the agent's answer to its
    /// header, or the client's own before sending it.
    static func refusal(_ length: Int) -> String {
        let limit = AgentSocket.maximumRequest >> 20
        return "A request of \(length) bytes is over the agent's limit of \(limit) MiB, so the agent does not take it; "
            + "run `coffer lock` and try again without the agent."
    }

    /// `response` as JSON; should an item in it not encode, the failure to encode it.
    private static func encoded(_ response: AgentResponse) -> Data? {
        do {
            return try JSONEncoder().encode(response)
        } catch {
            return try? JSONEncoder().encode(AgentResponse.failure(AgentFailure(reporting: error)))
        }
    }

    /// Once a second until the agent locks: what the vault looks like, for the lifecycle to
    /// decide on. The stored remote lock is read again only after another process committed.
    private func watch() async {
        let database = service.vault.database
        var seen = try? database.externalChangeToken()
        var remoteLock = (try? database.status())?.remoteLock?.at
        while !isShutDown {
            try? await Task.sleep(for: .seconds(1))
            if let token = try? database.externalChangeToken(), token != seen {
                seen = token
                remoteLock = (try? database.status())?.remoteLock?.at
            }
            // stat, not open: architecture §8.
            var info = stat()
            let observed = AgentLifecycle.Observation(isVaultLocked: await service.vault.isLocked,
                                                      hasVaultFile: stat(database.path, &info) == 0,
                                                      remoteLock: remoteLock)
            perform(record(.tick(observed)))
        }
    }

    private var isShutDown: Bool { stateLock.withLock { lifecycle.shutdownReason != nil } }

    /// Tells the lifecycle `event` now; what it returns is for `perform`.
    func record(_ event: AgentLifecycle.Event) -> [AgentLifecycle.Action] {
        let now = clock()
        return stateLock.withLock { lifecycle.handle(event, now: now) }
    }

    func perform(_ actions: [AgentLifecycle.Action]) {
        for action in actions {
            switch action {
            case .startSync:
                Task {
                    await service.backgroundSync()
                    perform(record(.syncFinished))
                }
            case .shutdown(let reason):
                Task { await shutdown(reason) }
            }
        }
    }

    /// Removes the sockets first (no new client finds a locking agent), stops accepting, wipes the
    /// keys, then terminates.
    private func shutdown(_ reason: AgentLifecycle.Reason) async {
        unlink(socketPath)
        listener.stopAccepting()
        if let ssh {
            unlink(ssh.path)
            ssh.listener.stopAccepting()
        }
        await service.vault.lock()
        terminate(reason)
        markStopped.finish()
    }

    /// Who the agent is and when it locks, for `status` and `renew`.
    private func status() -> AgentStatus {
        let now = clock()
        return stateLock.withLock {
            AgentStatus(pid: getpid(), vault: service.vault.database.path, idleSeconds: lifecycle.idleLimit,
                        locksInSeconds: lifecycle.secondsLeft(now: now))
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
