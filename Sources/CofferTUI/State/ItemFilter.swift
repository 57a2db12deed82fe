import CofferCore
import Foundation

/// The list's `/` filter: every word typed must appear in the title, username, an origin, a tag,
/// the notes, a field of the kind that is not secret, or a custom field's label or (not secret)
/// value, ignoring case and accents; a word `kind:card` keeps only the items of that kind.
enum ItemFilter {
    /// A filter's text taken apart: the words to find, and the kinds to keep.
    struct Query: Sendable, Equatable {
        /// Folded as the fields are.
        var words: [[UInt8]]
        /// What followed each `kind:`, lowercased: an item is kept when its kind's name starts
        /// with one of them (`kind:c` keeps cards while `kind:card` is being typed). Empty: every kind.
        var kinds: [String]
    }

    /// What a word starts with to name a kind rather than text to find.
    static let kindPrefix = "kind:"

    static func matches(_ item: ScreenItem, query: String) -> Bool {
        ListIndex(items: [item], sort: .title).visible(query: query).count == 1
    }

    /// The items to list, filtered then sorted; unreadable items sort last by id.
    static func visible(_ items: [ScreenItem], query: String, sort: ListState.SortOrder) -> [ScreenItem] {
        ListIndex(items: items, sort: sort).visible(query: query)
    }

    static func query(_ text: String) -> Query {
        var query = Query(words: [], kinds: [])
        for word in text.split(whereSeparator: \.isWhitespace) {
            if let kind = kind(in: word) {
                query.kinds.append(kind)
            } else {
                query.words.append(FoldedText.bytes(String(word)))
            }
        }
        return query
    }

    /// The query's words to find, folded as the fields are (`kind:` words left out).
    static func words(_ text: String) -> [[UInt8]] {
        query(text).words
    }

    /// The kind a `kind:` word names, lowercased; nil for any other word.
    static func kind<Word: StringProtocol>(in word: Word) -> String? {
        guard word.count >= kindPrefix.count, word.prefix(kindPrefix.count).lowercased() == kindPrefix else { return nil }
        return word.dropFirst(kindPrefix.count).lowercased()
    }

    /// The filter's text with its `kind:` words replaced by the next known kind's, in the order `n`
    /// offers them, or by none after the last (what `K` steps through).
    static func nextKind(in text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace)
        let names = ItemKind.known.map(\.name)
        let next: String?
        if let current = words.lazy.compactMap({ kind(in: $0) }).first, let index = names.firstIndex(of: current) {
            next = index + 1 < names.count ? names[index + 1] : nil
        } else {
            next = names.first
        }
        let others = words.filter { kind(in: $0) == nil }.map(String.init)
        return (others + (next.map { [kindPrefix + $0] } ?? [])).joined(separator: " ")
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
