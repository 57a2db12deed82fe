/// Which item a name given on the command line means (architecture §12): an id, an id prefix, an exact
/// title (ignoring case), then a unique part of a title. A pure function over the vault's items.
public enum ItemNameResolver {
    /// What the resolver knows of an item; an item that cannot be read has no title.
    public struct Candidate: Sendable, Equatable {
        public var id: String
        public var title: String?
        public var username: String?
        /// Folded once here, not per rule and per lookup: an index of 100,000 names is reused.
        let foldedTitle: String?
        let lowercasedID: String

        public init(id: String, title: String?, username: String? = nil) {
            self.id = id
            self.title = title
            self.username = username
            foldedTitle = title.map(ItemMatcher.fold)
            lowercasedID = id.lowercased()
        }

        /// A listed item as a candidate; an unreadable one has no title.
        public init(_ listed: ListedItem) {
            self.init(id: listed.id, title: listed.item?.title, username: listed.item?.entry.username)
        }

        public static func == (lhs: Candidate, rhs: Candidate) -> Bool {
            lhs.id == rhs.id && lhs.title == rhs.title && lhs.username == rhs.username
        }
    }

    public enum Resolution: Sendable, Equatable {
        case found(String)
        case none
        /// Several items match at the first rule that matches any: they are listed to choose from.
        case ambiguous([Candidate])
    }

    /// Shorter id prefixes are taken as titles: "ab" or "cafe" should not silently pick an id.
    public static let shortestIDPrefix = 4

    /// The id `name` means, or the errors commands report for none (exit 4) and several (exit 6).
    public static func id(of name: String, among candidates: [Candidate]) throws -> String {
        switch resolve(name, among: candidates) {
        case .found(let id): return id
        case .none: throw CoreError.noItemNamed(name)
        case .ambiguous(let matches): throw CoreError.ambiguousName(name, candidates: matches)
        }
    }

    /// Applies the rules in order; the first that matches anything decides.
    public static func resolve(_ name: String, among candidates: [Candidate]) -> Resolution {
        let lowered = name.lowercased()
        let folded = ItemMatcher.fold(name)
        let foldedBytes = Array(folded.utf8)
        let rules: [(Candidate) -> Bool] = [
            { $0.id == name },
            // Ids are ASCII: their bytes compare as their characters, at a fraction of the cost.
            { lowered.count >= shortestIDPrefix && $0.lowercasedID.utf8.starts(with: lowered.utf8) },
            { $0.foldedTitle == folded },
            { !folded.isEmpty && ($0.foldedTitle.map { ItemMatcher.utf8($0, contains: foldedBytes) } ?? false) },
        ]
        for rule in rules {
            let matches = candidates.filter(rule)
            if matches.count == 1 { return .found(matches[0].id) }
            if matches.count > 1 { return .ambiguous(matches.sorted { ($0.title ?? "", $0.id) < ($1.title ?? "", $1.id) }) }
        }
        return .none
    }
}
