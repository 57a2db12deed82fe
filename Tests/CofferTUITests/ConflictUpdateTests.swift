import CofferCore
import CofferSync
import XCTest
@testable import CofferTUI

/// A conflict from being shown (⚠, locked) to merged on unlock (⚑) to reviewed.
final class ConflictUpdateTests: XCTestCase {
    func testConflictShownThenMergedOnUnlockThenReviewed() {
        // Locked: the conflict waits, the status says so.
        let driver = Driver(Fixtures.locked())
        XCTAssertEqual(driver.state.summary.conflicts, 1)

        // Unlock: the item shows ⚠ until the unlock sync merges it.
        var items = Fixtures.items
        items[0].needsReview = false
        items[0].hasConflict = true
        _ = Update.apply(.unlocked(items: items, summary: Fixtures.summary), to: &driver.state, now: driver.clock.now)
        XCTAssertEqual(driver.state.sync.running, .unlock)
        XCTAssertEqual(driver.state.list.selectedID, "f6")
        XCTAssertEqual(driver.state.items[0].badges, "⚠   ")

        // The engine merged it.
        var report = SyncReport()
        report.merged = 1
        report.mergedIDs = ["a1"]
        driver.clock.advance(1)
        driver.send(.syncFinished(report), effects: [.reload]) { state in
            state.sync = SyncDisplay(lastSync: driver.clock.now)
            state.notice = Notice("Merged 1 item changed on two devices: press v to review.",
                                  until: driver.clock.now.addingTimeInterval(5))
            _ = state.scheduler.syncFinished(now: driver.clock.now, backoffUntil: nil)
        }
        var merged = items
        merged[0].hasConflict = false
        merged[0].needsReview = true
        merged[0].hasLocalChange = true
        var summary = Fixtures.summary
        summary.conflicts = 0
        summary.lastSync = driver.clock.now
        driver.send(.reloaded(items: merged, summary: summary)) { state in
            state.items = merged
            state.summary = summary
        }
        XCTAssertEqual(driver.state.items[0].badges, " ⚑↑ ")

        // Review: load, swap the username to the other device's, accept.
        driver.press(.character("v"), effects: [.loadReviews]) { $0.awaiting = AwaitedWork(.reviews) }
        driver.send(.reviewsLoaded([Fixtures.review, Fixtures.secondReview])) { state in
            state.awaiting = nil
            state.page = .review(ReviewState(reviews: [Fixtures.review, Fixtures.secondReview]))
        }
        var review = ReviewState(reviews: [Fixtures.review, Fixtures.secondReview])
        driver.press(.character(" ")) { state in
            review.reviews[0].fields[0].chosen = .remote
            state.page = .review(review)
        }
        driver.press(.character("a"), effects: [.resolveReview(review.reviews[0])]) { state in
            review.saving = ["a1"]
            state.page = .review(review)
        }
        driver.send(.reviewResolved(itemID: "a1"), effects: [.reload]) { state in
            state.items[0].needsReview = false
            state.page = .review(ReviewState(reviews: [Fixtures.secondReview]))
            state.notice = Notice("Reviewed “GitHub”.", until: driver.clock.now.addingTimeInterval(5))
            _ = state.scheduler.handle(.localChange, now: driver.clock.now)
        }
        // The last one, accepted as merged: back to the list, no new local change.
        driver.press(.enter, effects: [.resolveReview(Fixtures.secondReview)]) { state in
            var last = ReviewState(reviews: [Fixtures.secondReview])
            last.saving = ["b2"]
            state.page = .review(last)
        }
        driver.send(.reviewResolved(itemID: "b2"), effects: [.reload]) { state in
            state.page = .list
            state.notice = Notice("Reviewed “Bank”; nothing left to review.", until: driver.clock.now.addingTimeInterval(5))
        }
    }

    func testSwappingCyclesThroughTheAvailableValues() {
        var field = Fixtures.review.fields[2]
        XCTAssertEqual(field.chosenValue, "dev, oss, work")
        field.swapChoice()
        XCTAssertEqual(field.chosenValue, "dev, work")
        field.swapChoice()
        XCTAssertEqual(field.chosenValue, "dev, oss")
        field.swapChoice()
        XCTAssertEqual(field.chosen, .combined)
        var single = Fixtures.review.fields[0]
        single.swapChoice()
        single.swapChoice()
        XCTAssertEqual(single.chosen, .local)
    }

    func testNothingToReviewSaysSo() {
        var summary = Fixtures.summary
        summary.unreviewed = 0
        var items = Fixtures.items
        items[0].needsReview = false
        let driver = Driver(Fixtures.unlocked(items: items, summary: summary))
        driver.press(.character("v")) { state in
            state.notice = Notice("No merged item waits for review.", until: FakeClock.start.addingTimeInterval(5))
        }
    }
}
