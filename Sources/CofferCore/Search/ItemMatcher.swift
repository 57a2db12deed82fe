import Foundation

/// Case- and diacritic-insensitive substring search over title, username, origins, tags, notes,
/// a kind's fields that are not secret, and custom fields' labels and (not hidden) values: what
/// `coffer search` and the screen's `/` filter match. Secrets are never searched.
public struct ItemMatcher: Sendable {
    public let query: String
    private let words: [String]
    /// The words' bytes when every word is ASCII: then ASCII fields are searched in place.
    private let asciiWords: [[UInt8]]?

    public init(query: String) {
        self.query = query
        words = query.split(whereSeparator: \.isWhitespace).map { ItemMatcher.fold(String($0)) }
        asciiWords = words.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } } ? words.map { Array($0.utf8) } : nil
    }

    /// Every word of the query must appear in some field.
    public func matches(_ item: Item) -> Bool {
        guard !words.isEmpty else { return true }
        return words.indices.allSatisfy { index in
            contains(item.title, index) || contains(item.entry.username, index) || contains(item.entry.notes, index)
                || item.origins.contains { contains($0, index) } || item.tags.contains { contains($0, index) }
                || Self.forEachShownField(of: item.entry) { contains($0, index) }
        }
    }

    /// Calls `body` with each text of a kind's or custom field search covers, until it returns
    /// true; whether one did. Nothing for a login without custom fields (the common case).
    @discardableResult
    public static func forEachShownField(of entry: Entry, _ body: (String) -> Bool) -> Bool {
        for (name, value) in entry.fields where !ItemField.isSecret(name) { if body(value) { return true } }
        for field in entry.custom {
            if body(field.label) { return true }
            if !field.isSecret, body(field.value) { return true }
        }
        return false
    }

    /// An item's searchable fields, folded once, each followed by a NUL: its row in a long-lived
    /// index's `SearchTexts` (the agent's), and its text in the sealed `SearchIndex`, which is
    /// stored: changing what this writes needs a new `SearchIndex` magic.
    public static func appendSearchText(of item: Item, to text: inout [UInt8]) {
        func add(_ field: String) {
            text.append(contentsOf: fold(field).utf8)
            text.append(0)
        }
        add(item.title)
        add(item.entry.username)
        add(item.entry.notes)
        item.origins.forEach(add)
        item.tags.forEach(add)
        forEachShownField(of: item.entry) { field in
            add(field)
            return false
        }
    }

    /// The query's words, folded, as bytes: what `SearchTexts.rows(matching:)` looks for in the
    /// rows `appendSearchText` made.
    public var foldedWordBytes: [[UInt8]] { asciiWords ?? words.map { Array($0.utf8) } }

    /// The words as bytes when a byte search of the folded text finds every item `matches` finds
    /// (and maybe more): when every word is ASCII. A non-ASCII word can match a field through
    /// canonical equivalence (String's `contains`) where the bytes differ; nil then, and no empty
    /// query either (it matches everything).
    public var indexableWords: [[UInt8]]? {
        guard let asciiWords, !asciiWords.isEmpty else { return nil }
        return asciiWords
    }

    /// Whether the UTF-8 of (folded) `text` holds `word`'s: String's `contains` costs ~10 times more.
    static func utf8(_ text: String, contains word: [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { bytes($0, contain: word) }
    }

    /// Whether `text` holds `word`, byte for byte (memchr finds each candidate start).
    static func bytes(_ text: UnsafeBufferPointer<UInt8>, contain word: [UInt8]) -> Bool {
        guard let first = word.first else { return true }
        guard text.count >= word.count, let base = text.baseAddress else { return false }
        var start = 0
        let last = text.count - word.count
        while start <= last {
            guard let found = memchr(base + start, Int32(first), last - start + 1) else { return false }
            let offset = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if word.withUnsafeBufferPointer({ memcmp(base + offset, $0.baseAddress!, word.count) == 0 }) { return true }
            start = offset + 1
        }
        return false
    }

    /// Whether the folded `field` holds word `index`. ASCII fields are compared byte by byte,
    /// ignoring case, without folding a copy: folding every field of every item was most of the
    /// cost of `coffer search` after decryption.
    private func contains(_ field: String, _ index: Int) -> Bool {
        if let asciiWords, let found = ItemMatcher.asciiContains(field, asciiWords[index]) { return found }
        return ItemMatcher.fold(field).contains(words[index])
    }

    /// Whether ASCII `field` holds `word` (lowercase ASCII) ignoring case; nil if `field` is not ASCII.
    static func asciiContains(_ field: String, _ word: [UInt8]) -> Bool? {
        var field = field
        return field.withUTF8 { text -> Bool? in
            if text.contains(where: { $0 >= 0x80 }) { return nil }
            guard !word.isEmpty else { return true }
            guard text.count >= word.count else { return false }
            let first = word[0]
            for start in 0...(text.count - word.count) where lowercase(text[start]) == first {
                var offset = 1
                while offset < word.count, lowercase(text[start + offset]) == word[offset] { offset += 1 }
                if offset == word.count { return true }
            }
            return false
        }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Case- and accent-folded text. ASCII text (the common case) skips Foundation's folding,
    /// which costs microseconds per string and dominated searching 10,000 items.
    package static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
