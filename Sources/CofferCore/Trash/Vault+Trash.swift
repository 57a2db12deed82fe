import GRDB

extension Vault {
    /// Puts an item in the trash: an ordinary edit (`Item.trashed` set to now), so it syncs as one.
    /// An item already in the trash keeps its time.
    @discardableResult
    public func trash(_ id: String) throws -> Item {
        let current = try item(id)
        guard current.trashed == nil else { return current }
        var edited = current
        edited.trashed = now
        return try save(edited, from: current).item
    }

    /// Takes an item out of the trash, as it was: an ordinary edit.
    @discardableResult
    public func restore(_ id: String) throws -> Item {
        let current = try item(id)
        guard current.trashed != nil else { return current }
        var edited = current
        edited.trashed = nil
        return try save(edited, from: current).item
    }

    /// Removes for good every item in the trash (`coffer trash --empty`, the screen's Trash view).
    /// Returns how many.
    @discardableResult
    public func emptyTrash() throws -> Int {
        try removeTrashed(emptying: true)
    }

    /// Removes for good the items in the trash longer than `TrashRules.keptDays` (the unlocked
    /// sync calls it, before its push, so the removals go up in that sync), once a day
    /// (`meta.trash_checked_at`, noted after the removals: a crash looks again). Returns how many.
    @discardableResult
    public func purgeExpiredTrash() throws -> Int {
        let now = self.now
        let lastChecked = (try database.meta(.trashCheckedAt)).flatMap(Timestamp.init(iso8601:))
        guard TrashRules.isCheckDue(lastChecked: lastChecked, now: now) else { return 0 }
        let removed = try removeTrashed(emptying: false)
        try database.setMeta(.trashCheckedAt, now.iso8601)
        return removed
    }

    /// Decides from a listing, then removes in one transaction, checking each item again as
    /// stored then: one restored or edited out of the trash meanwhile (by another process, a
    /// sync) stays. A crash leaves all of them or none removed (crash points `vault.trash-removal.*`).
    private func removeTrashed(emptying: Bool) throws -> Int {
        let session = try unlockedSession()
        let (now, revisionTime) = writeTimes
        let chosen = TrashRules.toRemove(try listItems(where: { $0.isTrashed }), now: now, emptying: emptying)
        guard !chosen.isEmpty else { return 0 }
        CrashPoint.reach("vault.trash-removal.before-write")
        let removed = try database.write { db -> Int in
            var removed = 0
            for id in chosen {
                guard let current = try VaultDatabase.currentItem(id, in: db), !current.record.isDeleted,
                      let trashed = (try? ItemSealing.open(current.record, ring: session.ring))?.trashed,
                      emptying || TrashRules.isExpired(trashed: trashed, now: now)
                else { continue }
                try removeInside(current, session: session, revisionTime: revisionTime,
                                 crashLabel: "vault.trash-removal", in: db)
                removed += 1
            }
            return removed
        }
        CrashPoint.reach("vault.trash-removal.after-write")
        return removed
    }
}
