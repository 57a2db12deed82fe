/// How long the trash keeps an item, and which items it lets go (issue 43): pure, over values.
public enum TrashRules {
    /// Days an item stays in the trash before a sync removes it for good.
    public static let keptDays: Int64 = 30

    static let keptMilliseconds = keptDays * 24 * 60 * 60 * 1000

    /// How often a device looks for expired items: the look opens every item (a second or two at
    /// 100,000), too much for every sync the screen runs, and a day late is no harm at 30 days.
    public static let checkIntervalMilliseconds: Int64 = 24 * 60 * 60 * 1000

    /// Whether the unlocked sync looks for expired items now: never looked, a day since, or a
    /// clock that went back (the last look is in the future).
    public static func isCheckDue(lastChecked: Timestamp?, now: Timestamp) -> Bool {
        guard let lastChecked else { return true }
        let since = now.milliseconds - lastChecked.milliseconds
        return since < 0 || since >= checkIntervalMilliseconds
    }

    /// Whether an item put in the trash at `trashed` has stayed its time by `now`.
    public static func isExpired(trashed: Timestamp, now: Timestamp) -> Bool {
        now.milliseconds - trashed.milliseconds > keptMilliseconds
    }

    /// The ids of the listed items in the trash that `now` lets go: every one when `emptying`,
    /// else those past their time. Unreadable items are never chosen: nothing says they are trashed.
    public static func toRemove(_ listed: [ListedItem], now: Timestamp, emptying: Bool) -> [String] {
        listed.compactMap { entry in
            guard let trashed = entry.item?.trashed else { return nil }
            return emptying || isExpired(trashed: trashed, now: now) ? entry.id : nil
        }
    }
}
