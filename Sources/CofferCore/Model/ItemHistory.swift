import Foundation

/// An item's earlier entries, walked back from its history (each step's patch turns the entry into
/// the one before): what `coffer history` lists and what a restore (`--restore N`, the screen's
/// `R`) puts back.
public enum ItemHistory {
    public struct Version: Sendable, Equatable {
        /// When the change this entry came before was made.
        public var created: Timestamp
        /// The entry as it was before that change.
        public var entry: Entry
        /// The entry's members that change touched, then `tags` when it changed the tags.
        public var changedFields: [String]
        /// The item's tags before that change.
        public var tags: [String]
    }

    /// Newest first: version 1 is the entry before the last change.
    public static func versions(of item: Item) -> [Version] {
        var current = item.entry.jsonValue
        var currentTags = item.tags
        var result: [Version] = []
        for step in item.history {
            let previous = MergePatch.apply(step.patch, to: current)
            let previousTags = step.tags ?? currentTags
            let changed = ((step.patch.objectValue?.keys.sorted()) ?? []) + (step.tags == nil ? [] : ["tags"])
            if let entry = Entry(jsonValue: previous) {
                result.append(Version(created: step.created, entry: entry, changedFields: changed, tags: previousTags))
            }
            current = previous
            currentTags = previousTags
        }
        return result
    }

    /// `item` with earlier entry `number` (1: the newest) as its entry, to save as an edit from
    /// `item`; nil when there is no such entry.
    public static func restoring(_ number: Int, of item: Item) -> Item? {
        let versions = versions(of: item)
        guard versions.indices.contains(number - 1) else { return nil }
        var restored = item
        restored.entry = versions[number - 1].entry
        restored.tags = versions[number - 1].tags
        return restored
    }
}
