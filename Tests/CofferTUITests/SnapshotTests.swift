import CofferCore
import CofferSync
import XCTest
@testable import CofferTUI

/// Golden 80×24 frames of every screen, stored as text under Snapshots/.
final class SnapshotTests: XCTestCase {
    let now = FakeClock.start

    func frame(_ state: ScreenState) -> Grid {
        Render.frame(state, size: .standard, now: now)
    }

    func testFirstRun() {
        var state = Fixtures.firstRun()
        var form = NewVaultForm()
        form.passphrase = "correct horse"
        state.page = .firstRun(form)
        assertSnapshot(frame(state), named: "first-run")
    }

    /// Six random words: very strong, and no advice under the meter.
    func testFirstRunStrongPassphrase() {
        var state = Fixtures.firstRun()
        var form = NewVaultForm()
        form.passphrase = "ramp-crouch-velvet-oyster-famous-tunnel"
        state.page = .firstRun(form)
        assertSnapshot(frame(state), named: "first-run-strong")
    }

    func testFirstRunCreating() {
        var state = Fixtures.firstRun()
        state.busy = Busy(.creatingVault, since: now.addingTimeInterval(-0.35))
        assertSnapshot(frame(state), named: "first-run-creating")
    }

    func testLockedWithWaitingConflicts() {
        var state = Fixtures.locked()
        state.summary.conflicts = 2
        state.summary.pending = 3
        state.sync.lastError = .syncLocked
        state.sync.lastMessage = "2 conflicts wait for an unlock."
        assertSnapshot(frame(state), named: "locked-conflicts")
    }

    func testLockedWhileUnlocking() {
        var state = Fixtures.locked()
        state.busy = Busy(.unlocking, since: now.addingTimeInterval(-0.2))
        assertSnapshot(frame(state), named: "locked-unlocking")
    }

    func testLockedAfterAWrongPassphrase() {
        var state = Fixtures.locked()
        state.page = .locked(UnlockPrompt(error: "Wrong passphrase. Try again.", failedAttempts: 1))
        assertSnapshot(frame(state), named: "locked-wrong-passphrase")
    }

    func testListWithEachBadge() {
        assertSnapshot(frame(Fixtures.unlocked()), named: "list-badges")
    }

    func testFilteredList() {
        var state = Fixtures.unlocked()
        state.list.filter = TextField("finance")
        state.list.isFilterFocused = true
        state.list.selectedID = "e5"
        assertSnapshot(frame(state), named: "list-filtered")
    }

    func testEmptyList() {
        var state = Fixtures.unlocked(items: [])
        state.notice = Notice("Vault created. Press n to add an item.", until: now.addingTimeInterval(5))
        assertSnapshot(frame(state), named: "list-empty")
    }

    func testDetailMasked() {
        var state = Fixtures.unlocked()
        state.page = .detail(DetailState(itemID: "a1"))
        assertSnapshot(frame(state), named: "detail-masked")
    }

    func testDetailWithALiveTOTPCode() {
        var bank = Fixtures.bank
        bank.entry.totp = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        var state = Fixtures.unlocked(items: [ScreenItem(bank)])
        state.page = .detail(DetailState(itemID: "b2"))
        assertSnapshot(frame(state), named: "detail-totp")
    }

    func testDetailRevealed() {
        var state = Fixtures.unlocked()
        state.page = .detail(DetailState(itemID: "a1", isRevealed: true))
        state.clipboard = ClipboardCountdown(field: .password, until: now.addingTimeInterval(7))
        assertSnapshot(frame(state), named: "detail-revealed")
    }

    func testDetailOfAnItemWaitingForItsKey() {
        var state = Fixtures.unlocked()
        state.page = .detail(DetailState(itemID: "g7"))
        assertSnapshot(frame(state), named: "detail-waiting-for-key")
    }

    func testEditWithAValidationError() {
        var state = Fixtures.unlocked()
        var form = ItemForm(editing: Fixtures.github)
        form.texts[.title] = TextField("")
        form.hasChanges = true
        form.problems = [.title: ["Must not be empty."]]
        form.focus = .title
        state.page = .form(form)
        assertSnapshot(frame(state), named: "edit-validation-error")
    }

    func testPasswordGenerator() {
        var state = Fixtures.unlocked()
        var form = ItemForm()
        form.texts[.title] = TextField("Forge")
        form.focus = .password
        form.generator = GeneratorState(settings: GeneratorSettings(length: 24, classes: [.lowercase, .uppercase, .digits]),
                                        preview: "q7WmZ2pTbK9xRf3sHn4YcV8d")
        state.page = .form(form)
        assertSnapshot(frame(state), named: "edit-generator")
    }

    func testConflictReview() {
        var state = Fixtures.unlocked()
        var review = ReviewState(reviews: [Fixtures.review, Fixtures.secondReview], cursor: 1)
        review.reviews[0].fields[0].swapChoice()
        state.page = .review(review)
        assertSnapshot(frame(state), named: "conflict-review")
    }

    /// A merge with no field changed on both sides (one swapped back) and one where nothing differs to choose.
    func testConflictReviewOfOneSideChanges() {
        var state = Fixtures.unlocked()
        var review = ReviewState(reviews: [Fixtures.oneSideReview, Fixtures.lastUseReview], cursor: 3)
        review.reviews[0].fields[1].swapChoice()
        state.page = .review(review)
        assertSnapshot(frame(state), named: "conflict-review-one-side")
    }

    func testHelp() {
        var state = Fixtures.unlocked()
        state.overlay = .help
        assertSnapshot(frame(state), named: "help-list")
    }

    func testHelpWhileLocked() {
        var state = Fixtures.locked()
        state.overlay = .help
        assertSnapshot(frame(state), named: "help-locked")
    }

    func testConfirmDelete() {
        var state = Fixtures.unlocked()
        state.overlay = .confirm(Confirmation(question: "Move “Bank” to the trash?", action: .deleteItem(id: "b2"), askedOn: .list))
        assertSnapshot(frame(state), named: "confirm-delete")
    }

    // MARK: Sync states in the status bar

    func syncState(_ change: (inout ScreenState) -> Void) -> ScreenState {
        var state = Fixtures.unlocked()
        state.list.selectedID = "b2"
        change(&state)
        return state
    }

    func testSyncIdle() {
        assertSnapshot(frame(syncState { _ in }), named: "sync-idle")
    }

    func testSyncing() {
        let state = syncState { state in
            _ = state.scheduler.handle(.manual, now: now)
            state.sync.running = .manual
            state.sync.progress = SyncProgress(step: .push, collection: "items", done: 3, total: 10)
        }
        assertSnapshot(frame(state), named: "sync-syncing")
    }

    func testSyncErrors() {
        for name in [SyncErrorName.offline, .network, .syncLocked, .syncAuth] {
            let state = syncState { state in
                state.sync.lastError = name
                state.sync.lastSync = now.addingTimeInterval(-750)
            }
            assertSnapshot(frame(state), named: "sync-\(name.rawValue.lowercased())")
        }
    }

    func testSyncBackingOff() {
        let state = syncState { state in
            state.scheduler = SyncScheduler(hasAccount: true, backoffUntil: now.addingTimeInterval(90))
            state.sync.lastError = .network
        }
        assertSnapshot(frame(state), named: "sync-backoff")
    }

    func testSyncWithoutAccount() {
        var summary = Fixtures.summary
        summary.account = nil
        var state = Fixtures.unlocked(summary: summary)
        state.sync.lastSync = nil
        assertSnapshot(frame(state), named: "sync-no-account")
    }

    func testTooSmall() {
        assertSnapshot(Render.frame(Fixtures.unlocked(), size: Size(width: 30, height: 6), now: now), named: "too-small")
    }

    func testNarrowTerminalShortensTheStatusBar() {
        var state = Fixtures.unlocked()
        state.clipboard = ClipboardCountdown(field: .password, until: now.addingTimeInterval(9))
        assertSnapshot(Render.frame(state, size: Size(width: 50, height: 12), now: now), named: "list-narrow")
    }
}
