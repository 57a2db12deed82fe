import Foundation

/// Reviewing the items a sync merged on unlock.
extension Update {
    static func applyReview(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        guard !state.isLocked else { return [] }
        switch event {
        case .reviewsLoaded(let reviews):
            // Only the page that asked (`v`) opens them; the keys typed since act on what it shows.
            guard let keys = endAwaiting(.reviews, in: &state) else { return [] }
            if reviews.isEmpty {
                state.notice = Notice("No merged item waits for review.", until: now.addingTimeInterval(Notice.lifetime))
            } else {
                state.page = .review(ReviewState(reviews: reviews))
            }
            return replay(keys, in: &state, now: now)
        case .reviewsLoadFailed(let message):
            state.notice = Notice(message, isError: true, until: now.addingTimeInterval(Notice.lifetime))
            _ = endAwaiting(.reviews, in: &state)  // the keys were for the review page
            return []
        case .reviewResolved(let itemID):
            var effects: [Effect] = [.reload]
            if let index = state.items.firstIndex(where: { $0.id == itemID }) { state.items[index].needsReview = false }
            guard case .review(var review) = state.page else { return effects }
            let resolved = review.reviews.first { $0.itemID == itemID }
            if resolved?.isChanged == true {
                // A swapped choice is a local change: sync it like an edit.
                effects += schedule(state.scheduler.handle(.localChange, now: now), in: &state, now: now)
            }
            review.reviews.removeAll { $0.itemID == itemID }
            review.saving.remove(itemID)
            review.cursor = max(0, min(review.cursor, review.rows.count - 1))
            let title = resolved?.title ?? itemID
            if review.reviews.isEmpty {
                state.page = .list
                state.notice = Notice("Reviewed “\(title)”; nothing left to review.",
                                      until: now.addingTimeInterval(Notice.lifetime))
            } else {
                state.page = .review(review)
                state.notice = Notice("Reviewed “\(title)”.", until: now.addingTimeInterval(Notice.lifetime))
            }
            return effects
        default:
            return []
        }
    }

    static func performReview(_ action: Action, in state: inout ScreenState) -> [Effect] {
        guard case .review(var review) = state.page, let row = review.currentRow else { return [] }
        let itemID = review.reviews[row.review].itemID
        guard !review.saving.contains(itemID) else { return [] }
        switch action {
        case .swapChoice:
            guard let field = row.field else { return [] }
            review.reviews[row.review].fields[field].swapChoice()
            state.page = .review(review)
            return []
        case .acceptReview:
            review.saving.insert(itemID)
            state.page = .review(review)
            return [.resolveReview(review.reviews[row.review])]
        default:
            return []
        }
    }
}
