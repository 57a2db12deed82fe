import CofferCore
import CofferSync
import Foundation

/// What the agent answers to each request, with the vault it holds unlocked.
///
/// Searches and names are answered from `listing` (`AgentIndex`), the decrypted items kept in
/// memory for as long as nobody commits to the vault; after a commit, `Vault.listItems()` reopens
/// only the records that changed.
struct AgentService: Sendable {
    let vault: Vault
    let listing = ListingCache()

    /// The answer to `request`; a failure names its kind (`AgentFailure.Kind`). `status` is the
    /// agent's, after the request's arrival was told to its lifecycle (`status` and `renew` answer it).
    func handle(_ request: AgentRequest, status: AgentStatus) async -> AgentResponse {
        do {
            return try await answer(request, status: status)
        } catch {
            return .failure(AgentFailure(reporting: error))
        }
    }

    private func answer(_ request: AgentRequest, status: AgentStatus) async throws -> AgentResponse {
        defer { if request.writes { listing.forget() } }
        switch request {
        case .status:
            return .status(status)
        case .renew(let seconds):
            // As `coffer unlock --idle` checks it; the lifecycle kept its limit.
            if let seconds, !AgentLifecycle.acceptsIdleLimit(seconds) { throw AgentFailure.invalidIdle }
            return .status(status)
        case .lock:
            // The server locks once this is answered: the keys are wiped there.
            return .done
        case .items(let query):
            return .items(try await listing.index(of: vault).select(query))
        case .item(let name):
            return .item(try await item(named: name))
        case .add(let item):
            return .item(try await vault.add(item))
        case .update(let item, let base):
            return .saved(try await vault.update(item, from: base))
        case .remove(let id):
            try await vault.remove(id)
            return .done
        case .addAll(let items):
            try await vault.addAll(items)
            return .done
        case .now:
            return .now(vault.database.correctedNow())
        case .sync:
            let engine = try self.engine()
            return .sync(SyncOutcome(await engine.sync()))
        case .devices:
            return .devices(try await engine().devices())
        case .queueMessage(let topic, let deviceIDs):
            _ = try await engine().send(topic, to: deviceIDs)
            return .done
        case .removeDevice(let id, let rotate):
            do {
                try await engine().removeDevice(id, rotate: rotate)
            } catch let error as KintoError {
                // A server's refusal is a sync error here, as `coffer device rm` reports it without the agent.
                throw AgentFailure(AgentFailure.Kind(SyncEngine.name(of: error)), error.userMessage)
            }
            return .done
        case .attach(let itemID, let name, let data):
            return .item(try await vault.attach(data, named: name, to: itemID))
        case .detach(let itemID, let name):
            return .item(try await vault.detach(name, from: itemID))
        case .attachment(let itemID, let name):
            let (attachment, data) = try await vault.attachmentData(name, of: try await vault.item(itemID))
            return .file(attachment, data)
        }
    }

    /// The agent's own periodic sync, when the vault has an account: not a use (the idle clock
    /// runs on). The engine itself waits out a server's Backoff.
    func backgroundSync() async {
        guard let engine = try? SyncEngine.forAccount(of: vault) else { return }
        _ = await engine.sync()
        listing.forget()
    }

    /// `Vault.item(named:)` with the names looked up in the kept index.
    private func item(named name: String) async throws -> Item {
        if RecordID.isValid(name), let item = try? await vault.item(name) { return item }
        if let item = try await listing.index(of: vault).item(named: name) { return item }
        return try await vault.item(named: name)
    }

    private func engine() throws -> SyncEngine {
        guard let engine = try SyncEngine.forAccount(of: vault) else { throw AgentFailure.noAccount }
        return engine
    }
}
