import CofferCore
import Foundation

/// The list's `/` filter: every word typed must appear in the title, username, an origin, a tag
/// or the notes (ignoring case and accents).
public enum ItemFilter {
    public static func matches(_ item: ScreenItem, query: String) -> Bool {
        ListIndex(items: [item], sort: .title).visible(query: query).count == 1
    }

    /// The items to list, filtered then sorted; unreadable items sort last by id.
    public static func visible(_ items: [ScreenItem], query: String, sort: ListState.SortOrder) -> [ScreenItem] {
        ListIndex(items: items, sort: sort).visible(query: query)
    }

    /// The query's words, folded as the fields are.
    static func words(_ query: String) -> [String] {
        query.split(whereSeparator: \.isWhitespace).map { fold(String($0)) }
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Title order (natural: "Item 2" before "Item 10") or newest first; unreadable items last by id.
    static func sorted(_ items: [ScreenItem], by sort: ListState.SortOrder) -> [ScreenItem] {
        items.sorted { lhs, rhs in
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
