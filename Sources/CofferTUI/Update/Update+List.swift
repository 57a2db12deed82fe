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
            } else if case .members(let page) = state.page {
                leaveMembers(page, in: &state)
            } else if case .vaults(let page) = state.page {
                state.page = page.isVaultLocked ? .locked(UnlockPrompt()) : .list
            } else {
                state.page = .list
            }
        case .startFilter:
            // A new filter, as `/` starts a new search in less or vim: it appended to a kept one,
            // so "mail" then `/bank` searched "mailbank".
            state.list.filter = TextField()
            state.list.isFilterFocused = true
            keepSelectionVisible(in: &state)
        case .keepFilter:
            // Typing until one item is left and pressing Enter means "that one", as in fzf; with
            // several (or none) Enter only ends typing, so the list can be browsed.
            state.list.isFilterFocused = false
            let matches = state.visibleItems
            if matches.count == 1, let only = matches.first {
                state.list.selectedID = only.id
                state.page = .detail(DetailState(itemID: only.id))
            }
        case .clearFilter:
            state.list.filter = TextField()
            state.list.isFilterFocused = false
            keepSelectionVisible(in: &state)
        case .toggleSort:
            state.list.sort = state.list.sort == .title ? .modified : .title
            keepSelectionVisible(in: &state)
        case .newItem:
            // A login's form at once, its kind changeable there (^K): `n` then a title typed at
            // once must be the title. It asked the kind first, and the title's first letter
            // picked one ("screen-1" made an SSH key named "creen-1").
            state.page = .form(ItemForm(kind: state.settings.newItemKind))
        case .newItemOfKind:
            state.overlay = .chooseKind(KindQuestion(askedOn: state.page.identity))
        case .cycleKindFilter:
            state.list.filter = TextField(ItemFilter.nextKind(in: state.list.filter.text))
            keepSelectionVisible(in: &state)
        case .copyField:
            return copySelectedField(in: &state, now: now)
        case .editItem:
            guard let item = state.currentItem?.item else { return [] }
            state.page = .form(ItemForm(editing: item))
        case .restoreEntry:
            guard let item = state.currentItem?.item, let last = item.history.first else { return [] }
            let changed = ((last.patch.objectValue?.keys.sorted() ?? []) + (last.tags == nil ? [] : ["tags"]))
                .map(TerminalText.line).joined(separator: ", ")
            state.overlay = .confirm(Confirmation(
                question: "Put back \(changed.isEmpty ? "the fields" : changed) as before the change of \(Format.dateTime(last.created, in: state.settings.timeZone))?",
                action: .restoreEntry(id: item.id), askedOn: state.page.identity))
        case .deleteItem:
            guard let item = state.currentItem else { return [] }
            state.overlay = .confirm(Confirmation(question: "Move “\(TerminalText.name(item.displayTitle))” to the trash?",
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

    /// Copies one of the current item's values the copy keys name (`c`, `u`, `o`, `T`).
    static func copy(_ field: ClipboardCountdown.Field, in state: inout ScreenState, now: Date) -> [Effect] {
        guard let item = state.currentItem?.item else { return [] }
        let value: String?
        switch field {
        case .password: value = item.entry.password
        case .username: value = item.entry.username
        case .origin: value = item.origins.first
        case .totp:
            // The key is disabled for items without a usable secret; the code is the one shown now.
            value = (try? item.totpGenerator())??.code(at: now)
        default: value = nil
        }
        guard let value else { return [] }
        return copy(value, as: field, of: item, in: &state, now: now)
    }

    /// Copies the detail page's field under the cursor (Enter).
    static func copySelectedField(in state: inout ScreenState, now: Date) -> [Effect] {
        guard case .detail(let detail) = state.page, let item = state.item(detail.itemID)?.item,
              let field = detail.selectedField(in: item), let value = field.copiedValue(in: item, at: now) else { return [] }
        return copy(value, as: ClipboardCountdown.Field(name: field.name(in: item)), of: item, in: &state, now: now)
    }

    /// Puts `value` on the clipboard until the countdown ends, and says what was copied.
    static func copy(_ value: String, as field: ClipboardCountdown.Field, of item: Item, in state: inout ScreenState,
                     now: Date) -> [Effect] {
        state.clipboard = ClipboardCountdown(field: field, until: now.addingTimeInterval(state.settings.clipboardSeconds))
        state.notice = Notice("Copied the \(field.name) of “\(TerminalText.line(item.title))”.",
                              until: now.addingTimeInterval(Notice.lifetime))
        return [.copyToClipboard(SecretText(value))]
    }

    static func move(_ action: Action, in state: inout ScreenState, now: Date) -> [Effect] {
        if case .chooseKind(var question) = state.overlay {
            question.cursor = moved(question.cursor, by: action, count: ItemKind.known.count, page: 1)
            state.overlay = .chooseKind(question)
            return []
        }
        switch state.page {
        case .list:
            let rows = state.visibleItems
            guard let index = state.selectedIndex else { return [] }
            let target = moved(index, by: action, count: rows.count, page: state.listRows)
            state.list.selectedID = rows[target].id
            keepSelectionVisible(in: &state)
        case .detail(var detail):
            guard let row = state.item(detail.itemID) else { return [] }
            moveInDetail(&detail, of: row, by: action, state: state, now: now)
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
        case .trash(var page):
            let count = state.trashedItems.count
            guard count > 0 else { return [] }
            page.cursor = moved(min(page.cursor, count - 1), by: action, count: count, page: max(1, state.size.height - 6))
            state.page = .trash(page)
        case .health(var page):
            guard let count = state.health?.rows.count, count > 0 else { return [] }
            page.cursor = moved(page.cursor, by: action, count: count, page: max(1, state.size.height - 6))
            state.page = .health(page)
        case .members(var page):
            guard let count = state.summary.share?.members.count, count > 0 else { return [] }
            page.cursor = moved(min(page.cursor, count - 1), by: action, count: count, page: max(1, state.size.height - 6))
            state.page = .members(page)
        case .vaults(var page):
            guard let count = page.choices?.count, count > 0 else { return [] }
            page.cursor = moved(min(page.cursor, count - 1), by: action, count: count, page: max(1, state.size.height - 6))
            state.page = .vaults(page)
        default:
            break
        }
        return []
    }

    /// The detail page's cursor and scroll after a movement. ↑/↓ move the cursor from field to
    /// field, scrolling to keep it in view, and scroll the page a line past the first and the last
    /// (the history is below the fields); page keys scroll; Home and End go to the first and last
    /// field and the page's ends.
    static func moveInDetail(_ detail: inout DetailState, of row: ScreenItem, by action: Action, state: ScreenState,
                             now: Date) {
        let lines = DetailLayout.lines(for: row, state: state, detail: detail, now: now)
        // The page's rows: all but the title bar, the hint line and the status bar.
        let room = max(1, state.size.height - 3)
        let last = max(0, lines.count - room)
        let fieldLines = lines.indices.filter { lines[$0].field != nil }
        let selected = row.item.flatMap(detail.selectedField)
        let current = fieldLines.firstIndex { lines[$0].field == selected }
        var target: Int?
        switch action {
        case .moveDown:
            if let current, current + 1 < fieldLines.count { target = fieldLines[current + 1] } else { detail.scroll += 1 }
        case .moveUp:
            if let current, current > 0 { target = fieldLines[current - 1] } else { detail.scroll -= 1 }
        case .moveToTop:
            target = fieldLines.first
            detail.scroll = 0
        case .moveToBottom:
            target = fieldLines.last
            detail.scroll = last
        case .pageUp, .pageDown:
            detail.scroll = moved(min(detail.scroll, last), by: action, count: last + 1, page: room)
        default:
            break
        }
        if let target {
            detail.selected = lines[target].field
            if target < detail.scroll { detail.scroll = target }
            if target >= detail.scroll + room { detail.scroll = target - room + 1 }
        }
        detail.scroll = max(0, min(last, detail.scroll))
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
        state.localWrites += 1
        let rows = state.visibleItems
        if let index = rows.firstIndex(where: { $0.id == id }), state.list.selectedID == id || state.list.selectedID == nil {
            // Select the neighbour, as a file manager does.
            let neighbour = index + 1 < rows.count ? rows[index + 1] : (index > 0 ? rows[index - 1] : nil)
            state.list.selectedID = neighbour?.id
        }
        // In the trash, not gone (issue 43): shown there at once; the reload brings the version saved.
        if let index = state.items.firstIndex(where: { $0.id == id }), var item = state.items[index].item {
            item.trashed = item.trashed ?? Timestamp(now)
            state.items[index].content = .ready(item)
            state.items[index].hasLocalChange = true
        } else {
            state.items.removeAll { $0.id == id }
        }
        if case .detail(let detail) = state.page, detail.itemID == id { state.page = .list }
        keepSelectionVisible(in: &state)
        state.notice = Notice("Moved “\(TerminalText.line(title))” to the trash (Z shows it).",
                              until: now.addingTimeInterval(Notice.lifetime))
        let effects = [.reload] + schedule(state.scheduler.handle(.localChange, now: now), in: &state, now: now)
        // The keys typed after the confirmation act on the page the deletion leads to.
        guard let keys = endAwaiting(.deletion(itemID: id), in: &state) else { return effects }
        return effects + replay(keys, in: &state, now: now)
    }
}
