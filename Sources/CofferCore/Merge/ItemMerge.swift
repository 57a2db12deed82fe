/// The item merge of the Lockbox design ("Item Conflicts"), amended by the Airmail journal: pure, over values.
///
/// Start from local; for `title`, `disabled` and each `entry` field keep the side that changed it
/// since stable, and where both did, the later change (`LaterChange`); three-way merge `origins`
/// and `tags`; merge histories with local entries newer than remote ones; prepend a history entry
/// holding the entry values the merge dropped; set `modified` to now.
public enum ItemMerge {
    /// The merged item, and every field where local and remote differ (what a review shows).
    public struct Outcome: Sendable, Equatable {
        public var merged: Item
        public var conflicts: [FieldConflict]
    }

    /// Merges `local` and `remote`, both changed since `stable` (nil if the base is unknown: then
    /// local wins every scalar field and sets are unioned).
    ///
    /// `localWasShared` says whether remote can have been made from local (a pushed version): an
    /// edit being saved was seen by nobody, and two same-shaped edits made in one millisecond
    /// would otherwise pass for one descending from the other. Such an edit is also the latest
    /// change by definition: it keeps every field both changed.
    ///
    /// `remoteServerTime` is the server's timestamp of the record remote came in: no field time
    /// it carries can be later.
    public static func merge(local: Item, stable: Item?, remote: Item, now: Timestamp,
                             localWasShared: Bool = true, remoteServerTime: Timestamp? = nil) -> Outcome {
        // Remote may have been made on top of local: our push reached the server, its
        // acknowledgement was lost (a crash, a dropped answer) so stable is still the older
        // version, and another device edited ours. Local is then the base, and remote's edits win.
        let descends = localWasShared && remoteDescends(from: local, since: stable, remote: remote)
        let stable = descends ? local : stable
        var working = local
        var conflicts: [FieldConflict] = []

        /// Who changed a value that differs between local and remote; without a base, both. A
        /// side whose stamp for the field moved since the base changed it, even back to the base's
        /// value (a revert is an edit too).
        func changedOn<Value: Equatable>(_ path: KeyPath<Item, Value>, _ field: ItemField? = nil) -> ChangedOn {
            guard let stable else { return .both }
            func changed(_ side: Item) -> Bool {
                if side[keyPath: path] != stable[keyPath: path] { return true }
                guard let field, let stamp = side.times[field] else { return false }
                return stamp != stable.times[field]
            }
            switch (changed(local), changed(remote)) {
            case (true, true): return .both
            case (true, false): return .local
            case (false, _): return .remote
            }
        }

        func pick<Value: Equatable>(_ field: ItemField, _ path: WritableKeyPath<Item, Value>, describe: (Value) -> String) {
            let localValue = local[keyPath: path]
            let remoteValue = remote[keyPath: path]
            guard localValue != remoteValue else { return }
            let changed = changedOn(path, field)
            var conflict = FieldConflict(field: field, local: describe(localValue), remote: describe(remoteValue),
                                         changedOn: changed, chosen: changed == .remote ? .remote : .local)
            if changed == .both, localWasShared, FieldTimes.carriesTime(field) {
                let later = LaterChange.decide(field, local: local, remote: remote, stable: stable, now: now,
                                               remoteServerTime: remoteServerTime)
                conflict.chosen = later.chosen
                conflict.localStamp = later.local
                conflict.remoteStamp = later.remote
                working.times[field] = later.chosen == .remote ? later.remote : later.local
            } else if changed == .remote {
                working.times[field] = remote.times[field]
            }
            if conflict.chosen == .remote { working[keyPath: path] = remoteValue }
            conflicts.append(conflict)
        }

        /// Files as a set by id: each side's additions kept, each side's removals applied; the
        /// review shows the names (a choice there changes nothing: nothing of either side is lost).
        func mergeAttachments() {
            let ids = mergeSets(local: local.attachments.map(\.id), stable: stable?.attachments.map(\.id),
                                remote: remote.attachments.map(\.id))
            let known = Dictionary(remote.attachments.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                .merging(local.attachments.map { ($0.id, $0) }, uniquingKeysWith: { _, ours in ours })
            working.attachments = ids.compactMap { known[$0] }
            guard local.attachments != remote.attachments else { return }
            let lists = ListValues(local: local.attachments.map(\.name), remote: remote.attachments.map(\.name),
                                   combined: working.attachments.map(\.name))
            conflicts.append(FieldConflict(field: .attachments, lists: lists, changedOn: changedOn(\.attachments)))
        }

        /// A custom field, by id: added on one side only, kept; removed on one side and untouched
        /// on the other, removed; changed (or changed and removed) on both, the later change.
        func pickCustom(_ id: String) {
            let path = \Item.entry[custom: id]
            let before = conflicts.count
            pick(.custom(id), path) { $0?.value ?? "" }
            guard conflicts.count > before else { return }
            conflicts[before].customLocal = local[keyPath: path]
            conflicts[before].customRemote = remote[keyPath: path]
        }

        func combine(_ field: ItemField, _ path: WritableKeyPath<Item, [String]>) {
            let localValues = local[keyPath: path]
            let remoteValues = remote[keyPath: path]
            let combined = mergeSets(local: localValues, stable: stable?[keyPath: path], remote: remoteValues)
            working[keyPath: path] = combined
            guard localValues != remoteValues else { return }
            conflicts.append(FieldConflict(field: field, lists: ListValues(local: localValues, remote: remoteValues,
                                                                           combined: combined),
                                           changedOn: changedOn(path)))
        }

        pick(.title, \.title) { $0 }
        pick(.disabled, \.disabled) { $0 ? "yes" : "no" }
        pick(.username, \.entry.username) { $0 }
        pick(.password, \.entry.password) { $0 }
        pick(.notes, \.entry.notes) { $0 }
        pick(.totp, \.entry.totp) { $0 ?? "" }
        pick(.kind, \.entry.kind) { $0 }
        for name in Self.kindFieldNames(local, remote) { pick(.named(name), \.entry.fields[name]) { $0 ?? "" } }
        for id in Self.customIDs(local, remote) { pickCustom(id) }
        combine(.origins, \.origins)
        combine(.tags, \.tags)
        mergeAttachments()

        working.history = mergeHistories(local: local.history, remote: remote.history)
        if let remoteUsed = remote.lastUsed, remoteUsed > (working.lastUsed ?? remoteUsed) || working.lastUsed == nil {
            working.lastUsed = remoteUsed
        }
        working.created = min(local.created, remote.created)

        // The values the merge dropped go into history, so nothing either side had is lost: a
        // remote value it did not keep, or ours where a later remote change won. Only those: a
        // value a side did not change is stable's, which local's own history entry holds.
        if let entryExtra = Self.union(local.entry.extra, remote.entry.extra) { working.entry.extra = entryExtra }
        if let extra = Self.union(local.extra, remote.extra) { working.extra = extra }
        // In the trash or not is decided apart: an edit on one side beats a trash on the other.
        working.trashed = TrashMergeRule.decide(local: local, stable: stable, remote: remote).trashed
        let mergedEntry = working.entry
        var beforeMerge = mergedEntry
        func keepDropped<Value: Equatable>(_ path: WritableKeyPath<Entry, Value>) {
            let remoteValue = remote.entry[keyPath: path]
            let localValue = local.entry[keyPath: path]
            let remoteChanged = stable.map { $0.entry[keyPath: path] != remoteValue } ?? true
            let localChanged = stable.map { $0.entry[keyPath: path] != localValue } ?? true
            if remoteChanged, mergedEntry[keyPath: path] != remoteValue {
                beforeMerge[keyPath: path] = remoteValue
            } else if localChanged, mergedEntry[keyPath: path] != localValue {
                beforeMerge[keyPath: path] = localValue
            }
        }
        keepDropped(\.kind)
        keepDropped(\.username)
        keepDropped(\.password)
        keepDropped(\.notes)
        keepDropped(\.totp)
        for name in Self.kindFieldNames(local, remote) { keepDropped(\.fields[name]) }
        for id in Self.customIDs(local, remote) { keepDropped(\.[custom: id]) }
        working.entry = beforeMerge
        working.replaceEntry(with: mergedEntry, at: now)
        // The merge's own entry may say what an entry it kept already says (a merge redone after
        // a push that failed): one is enough.
        if beforeMerge != mergedEntry, working.history.count > 1, working.history[0].saysTheSame(as: working.history[1]) {
            working.history.remove(at: 0)
        }
        working.modified = max(now, working.created)
        return Outcome(merged: working, conflicts: conflicts)
    }

    /// The names of the kind fields either side has (a card's `number`), sorted.
    static func kindFieldNames(_ local: Item, _ remote: Item) -> [String] {
        Set(local.entry.fields.keys).union(remote.entry.fields.keys).sorted()
    }

    /// The ids of the custom fields either side has: local's in order, then remote's others.
    static func customIDs(_ local: Item, _ remote: Item) -> [String] {
        var ids = local.entry.custom.map(\.id)
        for field in remote.entry.custom where !ids.contains(field.id) { ids.append(field.id) }
        return ids
    }

    /// A newer version's members both sides carry: ours, with the ones only remote has added;
    /// nil when remote adds none. This version cannot tell which side changed them.
    static func union(_ local: [String: JSONValue], _ remote: [String: JSONValue]) -> [String: JSONValue]? {
        guard remote.keys.contains(where: { local[$0] == nil }) else { return nil }
        return local.merging(remote) { ours, _ in ours }
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
    ///
    /// Local entries that say what the first remote-only entry says (both sides made the same
    /// change, so each recorded "username (was “x”)") are left out where they would stand next to
    /// it: history listed the change twice. Local's go, not remote's: a conflicting local change
    /// was never on the server, so no other device looks for its entry to tell descent.
    public static func mergeHistories(local: [HistoryEntry], remote: [HistoryEntry]) -> [HistoryEntry] {
        let localSet = Set(local.map(HistoryKey.init))
        let remoteSet = Set(remote.map(HistoryKey.init))
        var localOnly = local.filter { !remoteSet.contains(HistoryKey($0)) }
        let remoteOnly = remote.filter { !localSet.contains(HistoryKey($0)) }
        let shared = local.filter { remoteSet.contains(HistoryKey($0)) }
        while let last = localOnly.last, let first = remoteOnly.first, last.saysTheSame(as: first) {
            localOnly.removeLast()
        }
        return Array((localOnly + remoteOnly + shared).prefix(Item.historyLimit))
    }

    /// Whether `remote` was made from `local`'s version: it holds local's newest history entry,
    /// which `stable` (the version local is based on) does not. Only entry and tag changes leave
    /// history, so a local change of title, origins or `disabled` alone cannot be recognised this way.
    static func remoteDescends(from local: Item, since stable: Item?, remote: Item) -> Bool {
        guard let stable, let newestEntry = local.history.first else { return false }
        let newest = HistoryKey(newestEntry)
        guard !stable.history.contains(where: { HistoryKey($0) == newest }) else { return false }
        guard remote.history.contains(where: { HistoryKey($0) == newest }) else { return false }
        return keeps(remote, theChangeOf: newestEntry, madeBy: local)
    }

    /// Whether `remote` still holds local's value of every field `entry` changed, or records
    /// changing it away (an entry whose patch holds that value), as a version made from local does.
    ///
    /// An identical entry also comes from another device's concurrent edit: the same field changed
    /// from the same value in the same millisecond (found by the randomized sync histories, whose
    /// clocks tick in whole seconds). Taken for descent, local's edit was dropped whole. When
    /// remote's history is at its limit, older entries may be cut: then descent is assumed, as before.
    private static func keeps(_ remote: Item, theChangeOf entry: HistoryEntry, madeBy local: Item) -> Bool {
        guard case .object(let changed) = entry.patch, case .object(let localValues) = local.entry.jsonValue,
              case .object(let remoteValues) = remote.entry.jsonValue, remote.history.count < Item.historyLimit
        else { return true }
        for field in changed.keys where remoteValues[field] != localValues[field] {
            // A merge patch writes an absent value (no TOTP) as null.
            let ours = localValues[field] ?? .null
            let changedAway = remote.history.contains { later in
                guard case .object(let patch) = later.patch else { return false }
                return patch[field] == ours
            }
            if !changedAway { return false }
        }
        // The same for the tags, when the entry changed them: remote holds local's, or an entry
        // changing them away.
        if entry.tags != nil, Set(remote.tags) != Set(local.tags) {
            return remote.history.contains { later in later.tags.map(Set.init) == Set(local.tags) }
        }
        return true
    }

    private struct HistoryKey: Hashable {
        let created: Timestamp
        let patch: JSONValue
        let tags: [String]?
        init(_ entry: HistoryEntry) {
            created = entry.created
            patch = entry.patch
            tags = entry.tags
        }
    }
}
