/// Where a merged item stands with respect to the trash (issue 43): pure, over values, one named
/// decision per case. `ItemMerge` applies it after merging every field.
///
/// The rule that matters: **an edit beats a trash.** When one side put the item in the trash and
/// the other edited it (anything but the trash: a field, a tag, a file), the merged item keeps the
/// edit and is *not* in the trash, as a removal meeting an edit loses (architecture §4). A user who
/// edited an item on one device wants it; nothing is hidden from them on the strength of a
/// keystroke made elsewhere without seeing that edit.
public enum TrashMergeRule {
    public enum Decision: Sendable, Equatable {
        /// Both sides agree (in the trash since the same time, or not in it).
        case same(Timestamp?)
        /// Only one side moved the item in or out of the trash, and the other did not edit it: that side's.
        case taken(Timestamp?)
        /// One side put it in the trash, the other edited it: out of the trash, the edit kept.
        case editBeatsTrash
        /// Both put it in the trash, at different times: the earlier, so it is purged no later
        /// than the first user asked (and both sides give the same answer).
        case earlierTrash(Timestamp)
        /// One side took it out, the other put it back in at another time; or the base is unknown
        /// and the sides differ: out of the trash — nothing is hidden on a guess.
        case outOfTrash

        /// The merged item's `trashed`.
        public var trashed: Timestamp? {
            switch self {
            case .same(let time), .taken(let time): return time
            case .earlierTrash(let time): return time
            case .editBeatsTrash, .outOfTrash: return nil
            }
        }
    }

    /// The decision for `local` and `remote`, both changed since `stable` (nil when the base is unknown).
    public static func decide(local: Item, stable: Item?, remote: Item) -> Decision {
        guard local.trashed != remote.trashed else { return .same(local.trashed) }
        guard let stable else { return .outOfTrash }
        let localMoved = local.trashed != stable.trashed
        let remoteMoved = remote.trashed != stable.trashed
        switch (localMoved, remoteMoved) {
        case (true, false):
            if local.trashed != nil, isEdited(remote, since: stable) { return .editBeatsTrash }
            return .taken(local.trashed)
        case (false, true):
            if remote.trashed != nil, isEdited(local, since: stable) { return .editBeatsTrash }
            return .taken(remote.trashed)
        case (true, true):
            if let ours = local.trashed, let theirs = remote.trashed { return .earlierTrash(min(ours, theirs)) }
            return .outOfTrash
        case (false, false):
            return .same(local.trashed)  // unreachable: both equal stable's, so equal each other
        }
    }

    /// Whether `side` differs from `stable` in anything but the trash and the times an edit
    /// moves by itself (`modified`, `lastUsed`: using an item is not editing it).
    static func isEdited(_ side: Item, since stable: Item) -> Bool {
        var side = side
        side.trashed = stable.trashed
        side.modified = stable.modified
        side.lastUsed = stable.lastUsed
        return side != stable
    }
}
