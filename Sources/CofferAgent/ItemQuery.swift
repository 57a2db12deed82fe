import CofferCore

/// Which items a listing wants, as data: it crosses the agent's socket (`AgentRequest.items`), and
/// the vault unlocked in-process answers it the same way.
public struct ItemQuery: Codable, Sendable, Equatable {
    /// Words that must all appear in some field (`coffer search`).
    public var text: String?
    public var tag: String?
    public var origin: String?
    public var id: String?
    /// True: the items in the trash (issue 43); nil or false: the others. Optional so that a query
    /// an older client sends, without the member, reads as it meant: no trashed item.
    public var inTrash: Bool?

    public init(text: String? = nil, tag: String? = nil, origin: String? = nil, id: String? = nil, inTrash: Bool? = nil) {
        self.text = text
        self.tag = tag
        self.origin = origin
        self.id = id
        self.inTrash = inTrash == true ? true : nil
    }

    /// Every item outside the trash.
    public static let everything = ItemQuery()
    /// Every item in the trash.
    public static let trash = ItemQuery(inTrash: true)

    /// Every item outside the trash: the listing without a filter (unreadable items included).
    public var selectsEverything: Bool { self == .everything }

    public func matcher() -> @Sendable (Item) -> Bool {
        let words = text.map(ItemMatcher.init(query:))
        let wantedTag = tag.map(SearchHash.normalizedTag)
        let wantedOrigin = origin.map(SearchHash.normalizedOrigin)
        let id = id
        let inTrash = inTrash == true
        return { item in
            item.isTrashed == inTrash
                && (id.map { item.id == $0 } ?? true)
                && (wantedTag.map { tag in item.tags.contains { SearchHash.normalizedTag($0) == tag } } ?? true)
                && (wantedOrigin.map { origin in item.origins.contains { SearchHash.normalizedOrigin($0) == origin } } ?? true)
                && (words.map { $0.matches(item) } ?? true)
        }
    }
}
