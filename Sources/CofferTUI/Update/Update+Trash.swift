import CofferCore
import Foundation

/// The Trash view (issue 43): opening it, restoring an item, emptying it after a yes, and the
/// outcomes the runtime reports.
extension Update {
    static func performTrash(_ action: Action, in state: inout ScreenState) -> [Effect] {
        switch action {
        case .openTrash:
            state.page = .trash(TrashPage())
        case .restoreFromTrash:
            guard case .trash(let page) = state.page else { return [] }
            let rows = state.trashedItems
            guard rows.indices.contains(page.cursor) else { return [] }
            return [.restoreItem(id: rows[page.cursor].id, title: rows[page.cursor].displayTitle)]
        case .emptyTrash:
            let count = state.trashedItems.count
            guard count > 0 else { return [] }
            state.overlay = .confirm(Confirmation(
                question: "Remove \(Format.count(count, "item")) in the trash for good, on every device?",
                action: .emptyTrash, askedOn: state.page.identity))
        default:
            break
        }
        return []
    }

    static func trashChanged(_ event: ScreenEvent, in state: inout ScreenState, now: Date) -> [Effect] {
        guard !state.isLocked else { return [] }
        let text: String
        switch event {
        case .itemRestored(let id, let title):
            // Shown at once as restored; the reload brings the version saved.
            if let index = state.items.firstIndex(where: { $0.id == id }), var item = state.items[index].item {
                item.trashed = nil
                state.items[index].content = .ready(item)
                state.items[index].hasLocalChange = true
            }
            text = "Restored “\(TerminalText.line(title))”."
        case .trashEmptied(let count):
            state.items.removeAll(where: \.isTrashed)
            text = "Removed \(Format.count(count, "item")) for good."
        case .trashActionFailed(let message):
            state.notice = Notice(TerminalText.message(message), isError: true, until: now.addingTimeInterval(Notice.lifetime))
            return []
        default:
            return []
        }
        state.localWrites += 1
        if case .trash(var page) = state.page {
            page.cursor = min(page.cursor, max(0, state.trashedItems.count - 1))
            state.page = .trash(page)
        }
        state.notice = Notice(text, until: now.addingTimeInterval(Notice.lifetime))
        return [.reload] + schedule(state.scheduler.handle(.localChange, now: now), in: &state, now: now)
    }
}
