import CofferCore
import XCTest
@testable import CofferTUI

/// The review page for merges without a field changed on both sides: every merged item has a
/// row to accept, so its ⚑ can always be cleared.
final class ReviewUpdateTests: XCTestCase {
    private func reviewingState() -> ScreenState {
        var items = Fixtures.items
        for index in items.indices { items[index].needsReview = ["c3", "d4"].contains(items[index].id) }
        return Fixtures.unlocked(items: items)
    }

    func testOneSideRowsAndAnItemWithoutRowsAreReviewedAndAccepted() {
        let driver = Driver(reviewingState())
        driver.press(.character("v"), effects: [.loadReviews]) { $0.awaiting = AwaitedWork(.reviews) }
        driver.send(.reviewsLoaded([Fixtures.oneSideReview, Fixtures.lastUseReview])) { state in
            state.awaiting = nil
            state.page = .review(ReviewState(reviews: [Fixtures.oneSideReview, Fixtures.lastUseReview]))
        }
        guard case .review(let loaded) = driver.state.page else { return XCTFail("not on the review page") }
        XCTAssertEqual(loaded.rows, [
            ReviewState.Row(review: 0, field: 0), ReviewState.Row(review: 0, field: 1), ReviewState.Row(review: 0, field: 2),
            ReviewState.Row(review: 1, field: nil),
        ])

        // The username changed only here: swapping it takes the other device's, undoing our change.
        var review = loaded
        driver.press(.character(" ")) { state in
            review.reviews[0].fields[0].chosen = .remote
            state.page = .review(review)
        }
        driver.press(.character("a"), effects: [.resolveReview(review.reviews[0])]) { state in
            review.saving = ["c3"]
            state.page = .review(review)
        }
        driver.send(.reviewResolved(itemID: "c3"), effects: [.reload]) { state in
            state.items[2].needsReview = false
            state.page = .review(ReviewState(reviews: [Fixtures.lastUseReview]))
            state.notice = Notice("Reviewed “Mail”.", until: driver.clock.now.addingTimeInterval(5))
            _ = state.scheduler.handle(.localChange, now: driver.clock.now)
        }

        // Only the last use differed: nothing to swap, but `a` accepts and clears the ⚑.
        driver.press(.character(" ")) { state in
            state.notice = Notice("No field differs here, so nothing to swap: a accepts the merge.",
                                  until: driver.clock.now.addingTimeInterval(5))
        }
        driver.press(.character("a"), effects: [.resolveReview(Fixtures.lastUseReview)]) { state in
            var last = ReviewState(reviews: [Fixtures.lastUseReview])
            last.saving = ["d4"]
            state.page = .review(last)
        }
        driver.send(.reviewResolved(itemID: "d4"), effects: [.reload]) { state in
            state.items[3].needsReview = false
            state.page = .list
            state.notice = Notice("Reviewed “Old forum”; nothing left to review.", until: driver.clock.now.addingTimeInterval(5))
        }
        XCTAssertFalse(driver.state.items.contains { $0.needsReview })
    }

    func testSpaceSwapsOneSideRowsBothWaysAndListsThroughTheCombinedValue() {
        var state = reviewingState()
        state.page = .review(ReviewState(reviews: [Fixtures.oneSideReview], cursor: 1))
        func current() -> FieldConflict? {
            guard case .review(let review) = state.page else { return nil }
            return review.currentField
        }
        func press(_ key: Key) { _ = Update.apply(.key(key), to: &state, now: FakeClock.start) }

        // The password was taken from the other device; swapping keeps this device's instead.
        press(.character(" "))
        XCTAssertEqual(current()?.chosen, .local)
        XCTAssertEqual(current()?.chosenValue, "p@ss")
        press(.character(" "))
        XCTAssertEqual(current()?.chosen, .remote)

        // The origins the merge combined: this device's, the other device's, combined again.
        press(.down)
        XCTAssertEqual(current()?.name, .origins)
        var seen: [FieldConflict.Choice] = []
        for _ in 0..<3 {
            press(.character(" "))
            seen += [current()?.chosen].compactMap { $0 }
        }
        XCTAssertEqual(seen, [.local, .remote, .combined])
        guard case .review(let review) = state.page else { return XCTFail("left the review page") }
        XCTAssertEqual(review.reviews[0].fields[2].chosen, review.reviews[0].fields[2].mergeChoice)
        XCTAssertFalse(review.reviews[0].isChanged)
    }

    /// The vault's review of a real merge, shown as rows; swapped rows go back as the vault's choices.
    func testAMergesReviewBecomesRowsAndSwapsBecomeChoices() {
        let created = Timestamp(milliseconds: 1_700_000_000_000)
        let stable = Item(id: "c3", title: "Mail", tags: ["home"], entry: Entry(username: "u0", password: "p0"), created: created)
        var local = stable
        local.entry.username = "u1"
        local.tags = ["home", "family"]
        var remote = stable
        remote.entry.password = "p1"
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: created)
        var review = ConflictReview(ItemReview(outcome: outcome))
        // The rows are the merge's own records (one conflict type from the merge to the screen).
        XCTAssertEqual(review.itemID, "c3")
        XCTAssertEqual(review.fields.map(\.merged), outcome.conflicts)
        XCTAssertEqual(review.fields.map(\.name), [.username, .password, .tags])
        XCTAssertEqual(review.fields.map(\.changedOn), [.local, .remote, .local])
        XCTAssertEqual(review.fields.map(\.chosen), [.local, .remote, .combined])
        XCTAssertEqual(review.fields[2].combined, "home, family")
        XCTAssertEqual(review.swappedChoices, [:])
        review.fields[1].swapChoice()
        review.fields[2].swapChoice()
        XCTAssertEqual(review.swappedChoices, [.password: .local, .tags: .local])
    }
}
