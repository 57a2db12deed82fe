import CofferCore
import Foundation

/// The list's `/` filter: every word typed must appear in the title, username, an origin, a tag
/// or the notes (ignoring case and accents).
enum ItemFilter {
    static func matches(_ item: ScreenItem, query: String) -> Bool {
        ListIndex(items: [item], sort: .title).visible(query: query).count == 1
    }

    /// The items to list, filtered then sorted; unreadable items sort last by id.
    static func visible(_ items: [ScreenItem], query: String, sort: ListState.SortOrder) -> [ScreenItem] {
        ListIndex(items: items, sort: sort).visible(query: query)
    }

    /// The query's words, folded as the fields are.
    static func words(_ query: String) -> [[UInt8]] {
        query.split(whereSeparator: \.isWhitespace).map { FoldedText.bytes(String($0)) }
    }

    /// Whether every row matching `words` also matches `looser`: each looser word lies inside some
    /// word of `words` (typing more only narrows, so the last rows are the only candidates).
    static func narrows(_ words: [[UInt8]], _ looser: [[UInt8]]) -> Bool {
        looser.allSatisfy { old in
            words.contains { new in
                old.isEmpty || (new.count >= old.count && new.indices.dropLast(old.count - 1).contains { start in
                    new[start..<(start + old.count)].elementsEqual(old)
                })
            }
        }
    }

    /// Title order (natural: "Item 2" before "Item 10") or newest first; unreadable items last by id.
    ///
    /// Sorts positions rather than the items (large values), and by keys computed once per item.
    static func sorted(_ items: [ScreenItem], by sort: ListState.SortOrder) -> [ScreenItem] {
        let order: [Int]
        switch sort {
        case .title:
            let keys = items.map { $0.item.map { TitleSortKey(title: $0.title) } }
            order = items.indices.sorted { left, right in
                switch (keys[left], keys[right]) {
                case let (leftKey?, rightKey?):
                    let byKey = TitleSortKey.compare(leftKey, rightKey)
                    if byKey != 0 { return byKey < 0 }
                    let leftTitle = items[left].displayTitle, rightTitle = items[right].displayTitle
                    if !leftTitle.utf8.elementsEqual(rightTitle.utf8) {
                        return leftTitle.utf8.lexicographicallyPrecedes(rightTitle.utf8)
                    }
                    return items[left].id < items[right].id
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): return items[left].id < items[right].id
                }
            }
        case .modified:
            let modified = items.map { $0.item?.modified }
            order = items.indices.sorted { left, right in
                switch (modified[left], modified[right]) {
                case let (leftTime?, rightTime?):
                    return leftTime == rightTime ? items[left].id < items[right].id : leftTime > rightTime
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): return items[left].id < items[right].id
                }
            }
        }
        return order.map { items[$0] }
    }
}
