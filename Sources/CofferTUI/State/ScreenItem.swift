import CofferCore

/// One item of the unlocked vault as the list and detail show it, with its badges.
///
/// Mirrors `ListedItem` (whose initialiser is internal to CofferCore) so tests can build one.
struct ScreenItem: Sendable, Equatable, Identifiable {
    enum Content: Sendable, Equatable {
        case ready(Item)
        /// Pushed by another device before the keystore holding its key.
        case waitingForKey
        /// Failed authentication; the text says why.
        case corrupt(String)
    }

    var id: String
    var content: Content
    /// ↑: changed here, not yet on the server.
    var hasLocalChange: Bool
    /// ⚠: changed here and elsewhere, waiting for the merge.
    var hasConflict: Bool
    /// ⚑: merged, not yet reviewed.
    var needsReview: Bool

    init(id: String, content: Content, hasLocalChange: Bool = false, hasConflict: Bool = false,
                needsReview: Bool = false) {
        self.id = id
        self.content = content
        self.hasLocalChange = hasLocalChange
        self.hasConflict = hasConflict
        self.needsReview = needsReview
    }

    init(_ item: Item, hasLocalChange: Bool = false, hasConflict: Bool = false, needsReview: Bool = false) {
        self.init(id: item.id, content: .ready(item), hasLocalChange: hasLocalChange, hasConflict: hasConflict,
                  needsReview: needsReview)
    }

    init(_ listed: ListedItem) {
        let content: Content
        switch listed.state {
        case .ready(let item): content = .ready(item)
        case .waitingForKey: content = .waitingForKey
        case .corrupt(let reason): content = .corrupt(reason)
        }
        self.init(id: listed.id, content: content, hasLocalChange: listed.hasLocalChange,
                  hasConflict: listed.hasConflict, needsReview: listed.needsReview)
    }

    var item: Item? {
        if case .ready(let item) = content { return item }
        return nil
    }

    var isDisabled: Bool { item?.disabled ?? false }

    /// In the trash (issue 43): on the Trash view only, never on the list.
    var isTrashed: Bool { item?.isTrashed ?? false }

    /// What the list shows as the title when the item cannot be read.
    var displayTitle: String {
        switch content {
        case .ready(let item): return item.title
        case .waitingForKey: return "(waiting for its key)"
        case .corrupt: return "(unreadable)"
        }
    }

    /// The badges in the list's first column, in a fixed order.
    var badges: String {
        (hasConflict ? "⚠" : " ") + (needsReview ? "⚑" : " ") + (hasLocalChange ? "↑" : " ") + (isDisabled ? "⊘" : " ")
    }
}
