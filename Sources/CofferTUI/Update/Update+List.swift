import CofferCore
import Foundation

/// The list and detail pages: moving, filtering, opening, copying, deleting.
extension Update {
    static func performBrowsing(_ action: Action, in state: inout ScreenState, now: Date) -> [Effect] {
        switch action {
        case .open:
            if case .health = state.page { return openHealthRow(in: &state) }
            guard let item = state.currentItem else { return [] }
            state.page = .detail(DetailState(itemID: item.id))
        case .back:
            if case .detail(let detail) = state.page, let health = detail.returnsToHealth {
                state.page = .health(health)
            } else {
                state.page = .list
            }
        case .startFilter:
            state.list.isFilterFocused = true
        case .keepFilter:
            state.list.isFilterFocused = false
        case .clearFilter:
            state.list.filter = TextField()
            state.list.isFilterFocused = false
            keepSelectionVisible(in: &state)
        case .toggleSort:
            state.list.sort = state.list.sort == .title ? .modified : .title
            keepSelectionVisible(in: &state)
        case .newItem:
            state.page = .form(ItemForm())
        case .editItem:
            guard let item = state.currentItem?.item else { return [] }
            state.page = .form(ItemForm(editing: item))
        case .deleteItem:
            guard let item = state.currentItem else { return [] }
            state.overlay = .confirm(Confirmation(question: "Delete “\(item.displayTitle)”?",
                                                  action: .deleteItem(id: item.id), askedOn: state.page.identity))
        case .copyPassword:
            return copy(.password, in: &state, now: now)
        case .copyUsername:
            return copy(.username, in: &state, now: now)
        case .copyOrigin:
            return copy(.origin, in: &state, now: now)
        case .copyTOTP:
            return copy(.totp, in: &state, now: now)
        case .reviewConflicts:
            state.awaiting = AwaitedWork(.reviews)
            return [.loadReviews]
        default:
            break
        }
        return []
    }

    static func copy(_ field: ClipboardCountdown.Field, in state: inout ScreenState, now: Date) -> [Effect] {
        guard let item = state.currentItem?.item else { return [] }
        let value: String
        switch field {
        case .password: value = item.entry.password
        case .username: value = item.entry.username
        case .origin: value = item.origins.first ?? ""
        case .totp:
            // The key is disabled for items without a usable secret; the code is the one shown now.
            guard let code = (try? item.totpGenerator())??.code(at: now) else { return [] }
            value = code
        }
        state.clipboard = ClipboardCountdown(field: field, until: now.addingTimeInterval(state.settings.clipboardSeconds))
        state.notice = Notice("Copied the \(field.rawValue) of “\(item.title)”.",
                              until: now.addingTimeInterval(Notice.lifetime))
        return [.copyToClipboard(SecretText(value))]
    }

    static func move(_ action: Action, in state: inout ScreenState, now: Date) -> [Effect] {
        switch state.page {
        case .list:
            let rows = state.visibleItems
            guard let index = state.selectedIndex else { return [] }
            let target = moved(index, by: action, count: rows.count, page: state.listRows)
            state.list.selectedID = rows[target].id
            keepSelectionVisible(in: &state)
        case .detail(var detail):
            guard let item = state.item(detail.itemID) else { return [] }
            let lines = DetailLayout.lines(for: item, state: state, detail: detail, now: now).count
            // The page's rows: all but the title bar, the hint line and the status bar.
            let room = max(1, state.size.height - 3)
            let last = max(0, lines - room)
            detail.scroll = min(last, moved(detail.scroll, by: action, count: last + 1, page: room))
            state.page = .detail(detail)
        case .review(var review):
            let count = review.rows.count
            guard count > 0 else { return [] }
            review.cursor = moved(review.cursor, by: action, count: count, page: max(1, state.size.height - 6))
            state.page = .review(review)
        case .devices(var page):
            guard let count = page.devices?.count, count > 0 else { return [] }
            page.cursor = moved(page.cursor, by: action, count: count, page: max(1, state.size.height - 5))
            state.page = .devices(page)
        case .health(var page):
            guard let count = state.health?.rows.count, count > 0 else { return [] }
            page.cursor = moved(page.cursor, by: action, count: count, page: max(1, state.size.height - 6))
            state.page = .health(page)
        default:
            break
        }
        return []
    }

    /// `index` after a movement, within 0..<count.
    static func moved(_ index: Int, by action: Action, count: Int, page: Int) -> Int {
        let target: Int
        switch action {
        case .moveUp: target = index - 1
        case .moveDown: target = index + 1
        case .pageUp: target = index - page
        case .pageDown: target = index + page
        case .moveToTop: target = 0
        case .moveToBottom: target = count - 1
        default: target = index
        }
        return max(0, min(count - 1, target))
    }

    /// Scrolls the list so the selected row shows, and pins the selection to an existing row.
    static func keepSelectionVisible(in state: inout ScreenState) {
        let rows = state.visibleItems
        guard let index = state.selectedIndex else {
            state.list.top = 0
            return
        }
        state.list.selectedID = rows[index].id
        let room = state.listRows
        if index < state.list.top { state.list.top = index }
        if index >= state.list.top + room { state.list.top = index - room + 1 }
        state.list.top = max(0, min(state.list.top, rows.count - room))
    }

    static func typeFilter(_ key: Key, in state: inout ScreenState) -> [Effect] {
        if key == .backspace, state.list.filter.isEmpty {
            state.list.isFilterFocused = false
            return []
        }
        guard state.list.filter.edit(with: key) else { return [] }
        keepSelectionVisible(in: &state)
        return []
    }

    static func itemDeleted(_ state: inout ScreenState, id: String, title: String, now: Date) -> [Effect] {
        guard !state.isLocked else { return [] }
        let rows = state.visibleItems
        if let index = rows.firstIndex(where: { $0.id == id }), state.list.selectedID == id || state.list.selectedID == nil {
            // Select the neighbour, as a file manager does.
            let neighbour = index + 1 < rows.count ? rows[index + 1] : (index > 0 ? rows[index - 1] : nil)
            state.list.selectedID = neighbour?.id
        }
        state.items.removeAll { $0.id == id }
        if case .detail(let detail) = state.page, detail.itemID == id { state.page = .list }
        keepSelectionVisible(in: &state)
        state.notice = Notice("Deleted “\(title)”.", until: now.addingTimeInterval(Notice.lifetime))
        let effects = [.reload] + schedule(state.scheduler.handle(.localChange, now: now), in: &state, now: now)
        // The keys typed after the confirmation act on the page the deletion leads to.
        guard let keys = endAwaiting(.deletion(itemID: id), in: &state) else { return effects }
        return effects + replay(keys, in: &state, now: now)
    }
}
