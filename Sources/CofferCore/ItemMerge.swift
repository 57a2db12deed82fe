/// The item merge of the Lockbox design ("Item Conflicts"): pure, over values.
///
/// Start from local; for `title`, `disabled` and each `entry` field keep local where it differs
/// from stable, else take remote; three-way merge `origins` and `tags`; merge histories with local
/// entries newer than remote ones; prepend a history entry from the working entry to remote's;
/// set `modified` to now.
public enum ItemMerge {
    public enum Side: String, Sendable, Codable, Equatable { case local, remote }

    /// A field both devices changed to different values: what each side had and what the merge kept.
    public struct FieldConflict: Sendable, Codable, Equatable {
        public var field: String
        public var local: String
        public var remote: String
        public var chosen: Side

        public init(field: String, local: String, remote: String, chosen: Side) {
            self.field = field
            self.local = local
            self.remote = remote
            self.chosen = chosen
        }
    }

    public struct Outcome: Sendable, Equatable {
        public var merged: Item
        public var conflicts: [FieldConflict]
    }

    /// Merges `local` and `remote`, both changed since `stable` (nil if the base is unknown: then
    /// local wins every scalar field and sets are unioned).
    ///
    /// `localWasShared` says whether remote can have been made from local (a pushed version): an
    /// edit being saved was seen by nobody, and two same-shaped edits made in one millisecond
    /// would otherwise pass for one descending from the other.
    public static func merge(local: Item, stable: Item?, remote: Item, now: Timestamp,
                             localWasShared: Bool = true) -> Outcome {
        // Remote may have been made on top of local: our push reached the server, its
        // acknowledgement was lost (a crash, a dropped answer) so stable is still the older
        // version, and another device edited ours. Local is then the base, and remote's edits win.
        let descends = localWasShared && remoteDescends(from: local, since: stable, remote: remote)
        let stable = descends ? local : stable
        var working = local
        var conflicts: [FieldConflict] = []

        func pick<Value: Equatable>(_ field: String, _ path: WritableKeyPath<Item, Value>, describe: (Value) -> String) {
            let localValue = local[keyPath: path]
            let remoteValue = remote[keyPath: path]
            guard let stable else { return }
            let stableValue = stable[keyPath: path]
            if localValue == stableValue {
                working[keyPath: path] = remoteValue
            } else if remoteValue != stableValue && remoteValue != localValue {
                conflicts.append(FieldConflict(field: field, local: describe(localValue), remote: describe(remoteValue),
                                               chosen: .local))
            }
        }

        pick("title", \.title) { $0 }
        pick("disabled", \.disabled) { $0 ? "yes" : "no" }
        pick("username", \.entry.username) { $0 }
        pick("password", \.entry.password) { $0 }
        pick("notes", \.entry.notes) { $0 }
        pick("totp", \.entry.totp) { $0 ?? "" }
        pick("kind", \.entry.kind) { $0 }

        working.origins = mergeSets(local: local.origins, stable: stable?.origins, remote: remote.origins)
        working.tags = mergeSets(local: local.tags, stable: stable?.tags, remote: remote.tags)
        working.history = mergeHistories(local: local.history, remote: remote.history)
        if let remoteUsed = remote.lastUsed, remoteUsed > (working.lastUsed ?? remoteUsed) || working.lastUsed == nil {
            working.lastUsed = remoteUsed
        }
        working.created = min(local.created, remote.created)

        // The history records remote's entry as the state before the merge, so nothing remote had is lost.
        let mergedEntry = working.entry
        working.entry = remote.entry
        var withStep = working
        withStep.replaceEntry(with: mergedEntry, at: now)
        withStep.modified = max(now, withStep.created)
        return Outcome(merged: withStep, conflicts: conflicts)
    }

    /// Three-way merge of a list treated as a set: additions and removals from both sides, in
    /// local order, then remote's additions in remote order.
    public static func mergeSets(local: [String], stable: [String]?, remote: [String]) -> [String] {
        let base = Set(stable ?? [])
        let remoteSet = Set(remote)
        let removedRemotely = stable == nil ? Set() : base.subtracting(remoteSet)
        var result: [String] = []
        var seen = Set<String>()
        for value in local where !removedRemotely.contains(value) && seen.insert(value).inserted {
            result.append(value)
        }
        let localSet = Set(local)
        for value in remote where !base.contains(value) && !localSet.contains(value) && seen.insert(value).inserted {
            result.append(value)
        }
        return result
    }

    /// Entries only local has come first (they are newer), then entries only remote has, then the
    /// shared older ones, at most `Item.historyLimit`.
    public static func mergeHistories(local: [HistoryEntry], remote: [HistoryEntry]) -> [HistoryEntry] {
        let localSet = Set(local.map(HistoryKey.init))
        let remoteSet = Set(remote.map(HistoryKey.init))
        let localOnly = local.filter { !remoteSet.contains(HistoryKey($0)) }
        let remoteOnly = remote.filter { !localSet.contains(HistoryKey($0)) }
        let shared = local.filter { remoteSet.contains(HistoryKey($0)) }
        return Array((localOnly + remoteOnly + shared).prefix(Item.historyLimit))
    }

    /// Whether `remote` was made from `local`'s version: it holds local's newest history entry,
    /// which `stable` (the version local is based on) does not. Only entry changes leave history,
    /// so a local change of title, tags, origins or `disabled` alone cannot be recognised this way.
    static func remoteDescends(from local: Item, since stable: Item?, remote: Item) -> Bool {
        guard let stable, let newest = local.history.first.map(HistoryKey.init) else { return false }
        guard !stable.history.contains(where: { HistoryKey($0) == newest }) else { return false }
        return remote.history.contains { HistoryKey($0) == newest }
    }

    private struct HistoryKey: Hashable {
        let created: Timestamp
        let patch: JSONValue
        init(_ entry: HistoryEntry) {
            created = entry.created
            patch = entry.patch
        }
    }
}
