import CofferCore
import Foundation

extension ScreenState {
    /// `now` by the server's clock as the last sync measured it (architecture §10): the time health ages
    /// are counted at. Not TOTP codes: they follow this device's clock (`TOTPClock`).
    func serverNow(_ now: Date) -> Date {
        now.addingTimeInterval(Double(summary.clockSkewMilliseconds ?? 0) / 1000)
    }

    /// The selected row's index among `visibleItems` (the first row when the selection is gone).
    var selectedIndex: Int? {
        let rows = visibleItems
        guard !rows.isEmpty else { return nil }
        return index.position(of: list.selectedID).flatMap(rows.index(ofSortedPosition:)) ?? 0
    }

    /// The item the item keys (copy, edit, delete) act on: the detail's, or the list's selection.
    var currentItem: ScreenItem? {
        switch page {
        case .detail(let detail): return item(detail.itemID)
        case .list:
            let rows = visibleItems
            return selectedIndex.map { rows[$0] }
        default: return nil
        }
    }

    /// The form's save is running: its outcome decides the next page (`AwaitedWork`).
    var isSaving: Bool {
        if case .save? = awaiting?.kind { return true }
        return false
    }

    /// Rows of items the list page has room for.
    var listRows: Int { max(1, size.height - 4) }

    /// Items merged and waiting for review (⚑).
    /// The items in the trash, the most recently trashed first (the Trash view's rows).
    var trashedItems: [ScreenItem] {
        items.filter(\.isTrashed).sorted { lhs, rhs in
            let (left, right) = (lhs.item?.trashed ?? Timestamp(milliseconds: 0), rhs.item?.trashed ?? Timestamp(milliseconds: 0))
            return left != right ? left > right : (lhs.displayTitle.lowercased(), lhs.id) < (rhs.displayTitle.lowercased(), rhs.id)
        }
    }

    /// How many items the list holds: those outside the trash.
    var listedCount: Int { index.sorted.count }

    var unreviewedCount: Int {
        isLocked ? summary.unreviewed : max(summary.unreviewed, index.needingReview)
    }

    var hasAccount: Bool { scheduler.hasAccount }

    /// What the title bar and the locked page call the vault: a shared vault's name ("family ·
    /// shared"), else the personal vault's file ("vault.db · personal"), through `TerminalText`.
    var vaultTitle: String { summary.share?.title ?? "\(TerminalText.name(vaultName)) · personal" }
}
