import CofferCore
import Foundation

/// The list's `/` filter: every word typed must appear in the title, username, an origin, a tag
/// or the notes (ignoring case and accents).
public enum ItemFilter {
    public static func matches(_ item: ScreenItem, query: String) -> Bool {
        let words = query.split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { return true }
        guard let content = item.item else { return false }
        let haystack = [content.title, content.entry.username, content.entry.notes] + content.origins + content.tags
        return words.allSatisfy { word in
            haystack.contains { $0.range(of: word, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
        }
    }

    /// The items to list, filtered then sorted; unreadable items sort last by id.
    public static func visible(_ items: [ScreenItem], query: String, sort: ListState.SortOrder) -> [ScreenItem] {
        items.filter { matches($0, query: query) }.sorted { lhs, rhs in
            switch (lhs.item, rhs.item) {
            case let (left?, right?):
                switch sort {
                case .title:
                    let order = left.title.localizedStandardCompare(right.title)
                    return order == .orderedSame ? left.id < right.id : order == .orderedAscending
                case .modified:
                    return left.modified == right.modified ? left.id < right.id : left.modified > right.modified
                }
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return lhs.id < rhs.id
            }
        }
    }
}
