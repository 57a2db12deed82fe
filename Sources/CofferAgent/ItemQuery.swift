import CofferCore

/// Which items a listing wants, as data: it crosses the agent's socket (`AgentRequest.items`), and
/// the vault unlocked in-process answers it the same way.
public struct ItemQuery: Codable, Sendable, Equatable {
    /// Words that must all appear in some field (`coffer search`).
    public var text: String?
    public var tag: String?
    public var origin: String?
    public var id: String?

    public init(text: String? = nil, tag: String? = nil, origin: String? = nil, id: String? = nil) {
        self.text = text
        self.tag = tag
        self.origin = origin
        self.id = id
    }

    public static let everything = ItemQuery()

    public var selectsEverything: Bool { self == .everything }

    public func matcher() -> @Sendable (Item) -> Bool {
        let words = text.map(ItemMatcher.init(query:))
        let wantedTag = tag.map(SearchHash.normalizedTag)
        let wantedOrigin = origin.map(SearchHash.normalizedOrigin)
        let id = id
        return { item in
            (id.map { item.id == $0 } ?? true)
                && (wantedTag.map { tag in item.tags.contains { SearchHash.normalizedTag($0) == tag } } ?? true)
                && (wantedOrigin.map { origin in item.origins.contains { SearchHash.normalizedOrigin($0) == origin } } ?? true)
                && (words.map { $0.matches(item) } ?? true)
        }
    }
}
