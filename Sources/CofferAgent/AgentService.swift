import CofferCore
import CofferSync
import Foundation

/// What the agent answers to each request, with the vault it holds unlocked.
///
/// Searches and names are answered from `index` (`AgentIndex`: ids, fingerprints and search text,
/// no decrypted item); the items an answer carries are opened for it from the vault.
struct AgentService: Sendable {
    let vault: Vault
    let index = AgentIndexKeeper()

    /// The answer to `request`; a failure names its kind (`AgentFailure.Kind`). `status` is the
    /// agent's, after the request's arrival was told to its lifecycle (`status` and `renew` answer it).
    func handle(_ request: AgentRequest, status: AgentStatus) async -> AgentResponse {
        do {
            let response = try await answer(request, status: status)
            if request.writes { await index.noteWrite(of: Self.itemIDs(writtenBy: request, answered: response), in: vault) }
            return response
        } catch {
            if request.writes { await index.noteWrite(of: nil, in: vault) }
            return .failure(AgentFailure(reporting: error))
        }
    }

    /// The items a write changed, whose rows the index reads again; nil when it may have changed
    /// any (a sync that took something in, an import, a device's removal).
    static func itemIDs(writtenBy request: AgentRequest, answered response: AgentResponse) -> [String]? {
        switch (request, response) {
        case (.sync, .sync(let outcome)) where outcome.tookNothingIn: return []
        case (.add, .item(let item)): return [item.id]
        case (.update(let item, _), .saved(let saved)): return Array(Set([item.id, saved.item.id]))
        case (.remove(let id), _): return [id]
        case (.attach(let id, _, _), _), (.detach(let id, _), _): return [id]
        default: return nil
        }
    }

    private func answer(_ request: AgentRequest, status: AgentStatus) async throws -> AgentResponse {
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
            return .items(try await items(query))
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
        let outcome = SyncOutcome(await engine.sync())
        await index.noteWrite(of: outcome.tookNothingIn ? [] : nil, in: vault)
    }

    /// What `query` selects, as `Vault.items(_:)` would: matches, and every unreadable item. A
    /// search, an id, an ASCII tag or origin open only the rows the index points at; everything, or
    /// a tag or origin beyond ASCII, opens every row.
    private func items(_ query: ItemQuery) async throws -> [ListedItem] {
        var others = query
        others.text = nil
        let listed: [ListedItem]
        if let text = query.text {
            let words = ItemMatcher(query: text).foldedWordBytes
            listed = try await index.read(vault) { index, vault in try vault.openListedItems(index.ids(matching: words)) }
        } else if let id = query.id {
            listed = try await index.read(vault) { index, vault in try vault.openListedItems(index.ids(forID: id)) }
        } else if let words = Self.textHints(query) {
            listed = try await index.read(vault) { index, vault in try vault.openListedItems(index.ids(matching: words)) }
        } else {
            return try await vault.listItems(where: query.matcher())
        }
        // Always matched, even with nothing else asked: the trash is in or out (issue 43).
        let include = others.matcher()
        return listed.filter { $0.item.map(include) ?? true }
    }

    /// Words every item a tag or origin query selects holds in its search text, when they are
    /// ASCII: the folded text of a tag or an origin is lowercased and so holds its normalized
    /// form. Only those rows are opened and then matched; nil (open every row) otherwise.
    static func textHints(_ query: ItemQuery) -> [[UInt8]]? {
        let hints = [query.tag.map(SearchHash.normalizedTag), query.origin.map(SearchHash.normalizedOrigin)].compactMap { $0 }
        guard !hints.isEmpty, hints.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 < 0x80 } }) else { return nil }
        return hints.map { Array($0.utf8) }
    }

    /// `Vault.item(named:)` with the names looked up in the index: only the item named is opened
    /// (and, for an ambiguous name, those it could mean).
    private func item(named name: String) async throws -> Item {
        if RecordID.isValid(name), let item = try? await vault.item(name), !item.isTrashed { return item }
        return try await index.read(vault) { index, vault in
            // Opened, not taken by count: an item in the trash has no name (issue 43).
            let candidates = try vault.openListedItems(index.ids(named: name))
                .filter { $0.item?.isTrashed != true }.map(ItemNameResolver.Candidate.init)
            return try vault.item(ItemNameResolver.id(of: name, among: candidates))
        }
    }

    private func engine() throws -> SyncEngine {
        guard let engine = try SyncEngine.forAccount(of: vault) else { throw AgentFailure.noAccount }
        return engine
    }
}
