import CofferCore
import Foundation

/// The agent's decrypted items with what searching and naming them needs, computed once per
/// listing: each item's folded search text and its name candidate.
struct AgentIndex: Sendable {
    let listed: [ListedItem]
    /// Nil for an item that cannot be read.
    private let searchTexts: [[UInt8]?]
    private let candidates: [ItemNameResolver.Candidate]

    init(_ listed: [ListedItem]) {
        self.listed = listed
        searchTexts = listed.map { $0.item.map(ItemMatcher.searchText(of:)) }
        candidates = listed.map(ItemNameResolver.Candidate.init)
    }

    /// What `query` selects, as `Vault.items(_:)` would: matches, and every unreadable item.
    func select(_ query: ItemQuery) -> [ListedItem] {
        guard !query.selectsEverything else { return listed }
        let words = query.text.map(ItemMatcher.init(query:))
        var others = query
        others.text = nil
        let otherwise = others.selectsEverything ? nil : others.matcher()
        // Only the search texts are read in the loop: taking each `Item` out of its `ListedItem`
        // (a dozen references retained) cost more than the search at 100,000 items.
        var selected: [ListedItem] = []
        for index in listed.indices {
            guard let text = searchTexts[index] else {
                selected.append(listed[index])
                continue
            }
            if let words, !words.matches(searchText: text) { continue }
            if let otherwise, let item = listed[index].item, !otherwise(item) { continue }
            selected.append(listed[index])
        }
        return selected
    }

    /// The item `name` means (DESIGN §12); nil when it is one this listing cannot give (unreadable).
    func item(named name: String) throws -> Item? {
        let id = try ItemNameResolver.id(of: name, among: candidates)
        return listed.first { $0.id == id }?.item
    }
}

/// The agent's index, valid while the vault's change token stays the same (other processes'
/// commits change it) and the agent itself wrote nothing (`forget`). An index built while the agent
/// wrote is not kept: `generation` tells.
final class ListingCache: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: (token: Int, index: AgentIndex)?
    private var generation = 0

    func index(of vault: Vault) async throws -> AgentIndex {
        let token = try vault.database.externalChangeToken()
        let (cached, started) = lock.withLock { (kept, generation) }
        if let cached, cached.token == token { return cached.index }
        let index = AgentIndex(try await vault.listItems())
        lock.withLock { if generation == started { kept = (token, index) } }
        return index
    }

    func forget() {
        lock.withLock {
            kept = nil
            generation += 1
        }
    }
}
