/// The trash (issue 43): an item is in it when its sealed plaintext holds the member `trashed`,
/// the time it was put there (ISO-8601 UTC, as every `Timestamp`).
///
/// Kept among `Item.extra` on purpose: that is where every version since items kept unknown
/// members reads it (`ItemJSONReader`), so a version older than the trash lists, shows, edits and
/// syncs a trashed item as an ordinary one and writes the member back unchanged. Putting an item
/// in the trash or taking it out is an ordinary edit: it syncs with no change to the protocol, the
/// server cannot tell a trashed item from another, and the merge decides (`TrashMergeRule`).
extension Item {
    /// The member's name in the item's JSON.
    public static let trashedMember = "trashed"

    /// When the item was put in the trash; nil when it is not in it. A member of another type
    /// (none of ours writes one) reads as not trashed and is kept as it came until set.
    public var trashed: Timestamp? {
        get { extra[Item.trashedMember]?.stringValue.flatMap(Timestamp.init(iso8601:)) }
        set { extra[Item.trashedMember] = newValue.map { .string($0.iso8601) } }
    }

    public var isTrashed: Bool { trashed != nil }
}
