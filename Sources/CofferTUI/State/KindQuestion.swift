import CofferCore

/// `N`'s question: which kind of item to make (a login unless another is chosen); `n` makes a
/// login's form at once, whose kind ^K changes, so that keys typed after `n` land in its title. It belongs to
/// the page it was asked on, as a `Confirmation` does: when that page goes, the question goes.
struct KindQuestion: Sendable, Equatable {
    /// Index into `ItemKind.known`: the kind Enter picks.
    var cursor = 0
    var askedOn: Page.Identity

    init(cursor: Int = 0, askedOn: Page.Identity) {
        self.cursor = cursor
        self.askedOn = askedOn
    }

    var kind: ItemKind { ItemKind.known[max(0, min(cursor, ItemKind.known.count - 1))] }
}
