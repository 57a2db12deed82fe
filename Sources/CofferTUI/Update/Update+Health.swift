import CofferCore
import Foundation

/// The Health page: checking the vault's passwords off the loop and opening the items it lists.
extension Update {
    static func openHealth(in state: inout ScreenState) -> [Effect] {
        state.page = .health(HealthState(isChecking: true))
        return [.checkHealth]
    }

    static func healthChecked(_ findings: HealthFindings, in state: inout ScreenState) -> [Effect] {
        // A check that ends after a lock must not bring titles back.
        guard !state.isLocked else { return [] }
        state.health = findings
        guard case .health(var page) = state.page else { return [] }
        page.isChecking = false
        page.cursor = min(page.cursor, max(0, findings.rows.count - 1))
        state.page = .health(page)
        return []
    }

    /// The items changed (here or in another process): the page checks again.
    static func recheckHealth(in state: inout ScreenState) -> [Effect] {
        guard case .health(var page) = state.page else { return [] }
        page.isChecking = true
        state.page = .health(page)
        return [.checkHealth]
    }

    /// Enter on a row: that item's detail page, whose Esc comes back here.
    static func openHealthRow(in state: inout ScreenState) -> [Effect] {
        guard case .health(let page) = state.page, let rows = state.health?.rows, rows.indices.contains(page.cursor),
              state.item(rows[page.cursor].itemID) != nil else { return [] }
        state.page = .detail(DetailState(itemID: rows[page.cursor].itemID, returnsToHealth: page))
        return []
    }
}
