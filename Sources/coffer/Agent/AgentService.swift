import CofferCore
import CofferSync
import Foundation

/// What the agent does for each request, with the vault it holds unlocked.
///
/// Searches and names are answered from `listing` (`AgentIndex`), the decrypted items kept in
/// memory for as long as nobody commits to the vault; after a commit, `Vault.listItems()` reopens
/// only the records that changed.
struct AgentService: Sendable {
    let vault: Vault
    let idle: IdleClock
    let listing = ListingCache()

    func handle(_ request: AgentRequest) async -> AgentResponse {
        if request.operation != .status { idle.touch() }
        do {
            return try await perform(request)
        } catch {
            return AgentResponse(failure: .init(exitCode: ExitStatus.code(for: error), message: "\(error)"))
        }
    }

    private func perform(_ request: AgentRequest) async throws -> AgentResponse {
        defer { if request.operation.writes { listing.forget() } }
        var response = AgentResponse()
        switch request.operation {
        case .status:
            response.status = status()
        case .renew:
            if let seconds = request.idle {
                // As `coffer unlock --idle` checks it: a negative limit would never run out.
                guard seconds.isFinite, seconds >= 0 else { throw Self.invalidIdle }
                idle.setLimit(seconds)
            }
            response.status = status()
        case .lock:
            // The caller's `shutdown` follows the answer: the keys are wiped there.
            break
        case .items:
            let index = try await listing.index(of: vault)
            response.listed = try index.select(request.query ?? .everything).map(WireListedItem.init)
        case .item:
            response.item = try ItemCodec.encode(try await item(named: try required(request.name)))
        case .add:
            response.item = try ItemCodec.encode(try await vault.add(try ItemCodec.decode(try required(request.item))))
        case .update:
            let saved = try await vault.update(try ItemCodec.decode(try required(request.item)),
                                               from: try ItemCodec.decode(try required(request.base)))
            response.item = try ItemCodec.encode(saved.item)
            response.mergedWithNewer = saved.mergedWithNewer
            response.conflicts = saved.conflicts
        case .remove:
            try await vault.remove(try required(request.id))
        case .addAll:
            try await vault.addAll(try (request.items ?? []).map(ItemCodec.decode))
        case .now:
            response.now = vault.database.correctedNow().timeIntervalSince1970 * 1000
        case .sync:
            response.sync = try await engine().syncOutcome()
        case .devices:
            response.devices = try await engine().devices()
        case .queueMessage:
            try await engine().queue(try required(request.topic), to: try required(request.ids))
        case .removeDevice:
            try await engine().remove(device: try required(request.id), rotate: request.rotate ?? false)
        }
        return response
    }

    static let invalidIdle = AgentFailure(exitCode: ExitStatus.usage,
                                          description: "The idle time must be a number of seconds, 0 or more; the limit is unchanged.")

    /// The agent's own periodic sync, when the vault has an account: not a use (the idle clock
    /// runs on). The engine itself waits out a server's Backoff.
    func backgroundSync() async {
        guard let engine = try? SyncEngine.forAccount(of: vault) else { return }
        _ = await engine.sync()
        listing.forget()
    }

    func status() -> AgentStatus {
        AgentStatus(pid: getpid(), vault: vault.database.path, idleSeconds: idle.limit, locksInSeconds: idle.secondsLeft())
    }

    /// `Vault.item(named:)` with the names looked up in the kept index.
    private func item(named name: String) async throws -> Item {
        if RecordID.isValid(name), let item = try? await vault.item(name) { return item }
        if let item = try await listing.index(of: vault).item(named: name) { return item }
        return try await vault.item(named: name)
    }

    private func engine() throws -> SyncEngine {
        guard let engine = try SyncEngine.forAccount(of: vault) else { throw DeviceSession.noAccount }
        return engine
    }

    private func required<Value>(_ value: Value?) throws -> Value {
        guard let value else { throw AgentError.protocolError("a request without its argument") }
        return value
    }
}

/// The agent's idle clock: every use restarts it; a limit of 0 never runs out.
final class IdleClock: @unchecked Sendable {
    private let lock = NSLock()
    private var lastUse = Date()
    private var seconds: Double

    init(limit: Double) {
        seconds = limit
    }

    var limit: Double { lock.withLock { seconds } }

    func touch() { lock.withLock { lastUse = Date() } }

    func setLimit(_ limit: Double) {
        lock.withLock {
            seconds = limit
            lastUse = Date()
        }
    }

    /// Seconds before the idle lock; nil without a limit.
    func secondsLeft(now: Date = Date()) -> Double? {
        lock.withLock { seconds > 0 ? max(0, seconds - now.timeIntervalSince(lastUse)) : nil }
    }
}
