/// Work whose outcome decides the next page, and the keys typed before it came (architecture §5).
///
/// A save shows the saved item's detail (or the form again, with its error); a deletion shows the
/// list; loading the reviews shows the review page. While such work runs, the page the person will
/// see next is not on the screen yet, so keys wait here, in order, and `Update` applies them to the
/// page the outcome shows, as if the work had ended before the first of them. A failure keeps the
/// page and drops them: they were typed for a page that did not come. Locking drops them too (they
/// may be text typed into a form).
struct AwaitedWork: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// The form's save. An Esc typed while it runs waits with the other keys and acts on the
        /// saved item's page (back to the list): it closed the form to where it was opened from,
        /// which for an edit was that same page, so the Esc seemed dropped.
        case save
        /// A deletion the user confirmed.
        case deletion(itemID: String)
        /// The merged items to review (`v`).
        case reviews
        /// A file added to the item or removed from it (`a`, `x`): the detail's lines move.
        case files(itemID: String)
        /// Another vault opening from the picker: the keys typed meanwhile were meant for this
        /// one, so its outcome drops them (they must not act on another vault's items).
        case vaultSwitch
    }

    var kind: Kind
    /// Keys typed while the work runs, oldest first; at most `limit`.
    var keys: [Key] = []

    /// Keys kept at most: a save waits seconds at worst (another process holding the vault's lock).
    static let limit = 256

    init(_ kind: Kind) {
        self.kind = kind
    }
}
