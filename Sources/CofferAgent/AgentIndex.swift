import CofferCore
import Foundation

/// The agent's decrypted items with what searching and naming them needs, computed once per
/// listing: each item's folded search text and its name candidate.
struct AgentIndex: Sendable {
    let listed: [ListedItem]
    /// Each item's folded search text, in `listed`'s order (unreadable items: an empty row).
    private let texts: SearchTexts
    /// Positions in `listed` of the items that cannot be read, which every query selects.
    private let unreadable: [Int]
    private let candidates: [ItemNameResolver.Candidate]

    init(_ listed: [ListedItem]) {
        self.listed = listed
        var texts = SearchTexts()
        texts.reserveCapacity(rows: listed.count)
        var unreadable: [Int] = []
        for (index, entry) in listed.enumerated() {
            texts.appendRow { bytes in
                guard let item = entry.item else { return unreadable.append(index) }
                ItemMatcher.appendSearchText(of: item, to: &bytes)
            }
        }
        self.texts = texts
        self.unreadable = unreadable
        candidates = listed.map(ItemNameResolver.Candidate.init)
    }

    /// What `query` selects, as `Vault.items(_:)` would: matches, and every unreadable item.
    func select(_ query: ItemQuery) -> [ListedItem] {
        guard !query.selectsEverything else { return listed }
        var others = query
        others.text = nil
        let otherwise = others.selectsEverything ? nil : others.matcher()
        // Only the rows the words let through are read: taking each `Item` out of its
        // `ListedItem` (a dozen references retained) cost more than the search at 100,000 items.
        let words = query.text.map { ItemMatcher(query: $0).foldedWordBytes } ?? []
        var found = words.isEmpty ? listed.indices.filter { listed[$0].item != nil } : texts.rows(matching: words)
        if let otherwise { found.removeAll { !otherwise(listed[$0].item!) } }
        return Self.merged(found, unreadable).map { listed[$0] }
    }

    /// Two ascending lists of positions as one (they never share a position).
    private static func merged(_ left: [Int], _ right: [Int]) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(left.count + right.count)
        var (l, r) = (0, 0)
        while l < left.count || r < right.count {
            if r == right.count || (l < left.count && left[l] < right[r]) {
                result.append(left[l])
                l += 1
            } else {
                result.append(right[r])
                r += 1
            }
        }
        return result
    }

    /// The item `name` means (architecture §12); nil when it is one this listing cannot give (unreadable).
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
