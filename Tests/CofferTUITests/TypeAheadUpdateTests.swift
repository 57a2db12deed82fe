import CofferCore
import Foundation
import XCTest
@testable import CofferTUI

/// Keys typed while a save, a deletion or the loading of reviews runs (issue 30): they act on the
/// page its outcome shows, as if the work had finished at once; a failure keeps the page and drops
/// them; no question is left over a page it was not asked on.
///
/// Each table types one sequence at full speed and lets the work finish after every prefix of it.
final class TypeAheadUpdateTests: XCTestCase {
    /// The runtime and the vault in miniature: the work the effects ask for waits until the test
    /// finishes it, in the order asked, and comes back as the runtime's events.
    final class Harness {
        var state: ScreenState
        let clock = FakeClock()
        /// The vault's titles by id.
        var titles: [String: String]
        private var waiting: [Effect] = []
        private var created = 0
        /// How many of the next saves fail, and how.
        var failingSaves = 0
        var saveFailure = SaveFailure.other("The disk is full.")

        init(_ state: ScreenState) {
            self.state = state
            titles = Dictionary(uniqueKeysWithValues: state.items.map { ($0.id, $0.item?.title ?? "") })
        }

        func press(_ key: Key) { take(Update.apply(.key(key), to: &state, now: clock.now)) }

        func press(_ keys: [Key]) { for key in keys { press(key) } }

        /// Finishes every waiting piece of work, and what its events asked for in turn.
        func finishWork() {
            while !waiting.isEmpty {
                let effect = waiting.removeFirst()
                guard let event = outcome(of: effect) else { continue }
                take(Update.apply(event, to: &state, now: clock.now))
            }
        }

        private func take(_ effects: [Effect]) {
            waiting += effects.filter(Harness.isWork)
        }

        /// Whether the runtime answers `effect` with an event this harness makes.
        private static func isWork(_ effect: Effect) -> Bool {
            switch effect {
            case .saveItem, .deleteItem, .loadReviews, .resolveReview: return true
            default: return false
            }
        }

        private func outcome(of effect: Effect) -> ScreenEvent? {
            switch effect {
            case .saveItem(var item, let base):
                if failingSaves > 0 {
                    failingSaves -= 1
                    return .itemSaveFailed(saveFailure)
                }
                if base == nil {
                    created += 1
                    item.id = "new-\(created)"
                }
                titles[item.id] = item.title
                return .itemSaved(item)
            case .deleteItem(let id, let title):
                titles[id] = nil
                return .itemDeleted(id: id, title: title)
            case .loadReviews:
                return .reviewsLoaded([Fixtures.review, Fixtures.secondReview])
            case .resolveReview(let review):
                return .reviewResolved(itemID: review.itemID)
            default:
                return nil
            }
        }

        var sortedTitles: [String] { titles.values.sorted() }
    }

    static func typing(_ text: String) -> [Key] { text.map { Key.character($0) } }

    /// The form for a new login, opened from the list (`n`).
    func newItemForm() -> Harness {
        let harness = Harness(Fixtures.unlocked())
        harness.press([.character("n")])
        return harness
    }

    /// Types `keys` into `start()`, finishing the work after the key at `finishing` (nil: only at
    /// the end), then finishes everything.
    func run(_ keys: [Key], finishingAfter finishing: Int?, from start: () -> Harness,
             then check: (Harness) -> Void = { _ in }) -> Harness {
        let harness = start()
        for (index, key) in keys.enumerated() {
            harness.press(key)
            if index == finishing {
                harness.finishWork()
                check(harness)
            }
        }
        harness.finishWork()
        return harness
    }

    /// `n` then a title typed at once: the title, whole, of a login. `n` asked the kind first, whose
    /// letters picked one: "screen-1" made an SSH key named "creen-1". The kind question is `N`'s.
    func testATitleTypedRightAfterNIsTheTitle() throws {
        let harness = Harness(Fixtures.unlocked())
        let before = harness.sortedTitles
        harness.press([.character("n")] + Self.typing("screen-1") + [.enter])
        harness.finishWork()
        XCTAssertEqual(harness.sortedTitles, (before + ["screen-1"]).sorted())
        let saved = try XCTUnwrap(harness.state.items.first { $0.item?.title == "screen-1" }?.item)
        XCTAssertEqual(saved.entry.kind, ItemKind.login.name)
        XCTAssertNil(harness.state.overlay)

        let asking = Harness(Fixtures.unlocked())
        asking.press([.character("N")])
        XCTAssertEqual(asking.state.overlay, .chooseKind(KindQuestion(askedOn: .list)), "N still asks the kind")
    }

    /// Issue 30's keys: save and close, then a second new item. Wherever the save ends, the vault
    /// holds both titles as typed (no "Titleen-3" rename) and the second item's detail shows with
    /// no question over it: the same state as when each save ends before the next key.
    func testKeysTypedAheadOfASaveActOnThePageAfterIt() {
        let keys = Self.typing("Title") + [.enter, .escape, .character("n")] + Self.typing("screen-3") + [.enter]
        let atOnce = newItemForm()
        for key in keys {
            atOnce.press(key)
            atOnce.finishWork()
        }
        let expectedTitles = (newItemForm().sortedTitles + ["Title", "screen-3"]).sorted()
        XCTAssertEqual(atOnce.sortedTitles, expectedTitles)
        XCTAssertEqual(atOnce.state.page, .detail(DetailState(itemID: "new-2")))
        XCTAssertNil(atOnce.state.overlay)

        let enter = 5
        for finishing in [nil] + Array(enter..<keys.count) {
            let label = "save finishing after key \(finishing.map(String.init) ?? "the last")"
            let typed = run(keys, finishingAfter: finishing, from: newItemForm) { harness in
                let frame = Render.frame(harness.state, size: .standard, now: harness.clock.now).text
                XCTAssertFalse(frame.contains("Discard"), "\(label):\n\(frame)")
            }
            XCTAssertEqual(typed.sortedTitles, expectedTitles, label)
            XCTAssertEqual(typed.state.page, atOnce.state.page, label)
            XCTAssertNil(typed.state.overlay, label)
            assertState(typed.state, equals: atOnce.state)
        }
    }

    /// Esc during a save waits for it and then acts on the saved item's page: back to the list,
    /// for a new item and for an edit alike (an edit's Esc closed the form onto the item's page,
    /// the page the save showed anyway, and seemed dropped); never a "Discard your changes?".
    func testEscapeDuringASaveActsAfterIt() {
        let typed = newItemForm()
        typed.press(Self.typing("Title") + [.enter, .escape])
        XCTAssertNil(typed.state.overlay, "nothing to discard: the changes are being saved")
        typed.finishWork()
        XCTAssertEqual(typed.state.page, .list)
        XCTAssertEqual(typed.state.list.selectedID, "new-1")
        XCTAssertNil(typed.state.overlay)

        var detail = Fixtures.unlocked()
        detail.list.selectedID = Fixtures.bank.id
        detail.page = .detail(DetailState(itemID: Fixtures.bank.id))
        let edit = Harness(detail)
        edit.press([.character("e"), .end] + Self.typing("!") + [.enter, .escape])
        edit.finishWork()
        XCTAssertEqual(edit.titles[Fixtures.bank.id], "Bank!")
        XCTAssertEqual(edit.state.page, .list, "the Esc typed during the save went back from the item")
        XCTAssertEqual(edit.state.list.selectedID, Fixtures.bank.id)
        XCTAssertNil(edit.state.overlay)
    }

    /// A save that fails keeps the form and its error; the keys typed while it ran are dropped
    /// (they were meant for the page after it), and only keys typed after the failure act on the
    /// form: the same state as when the failure comes before them.
    func testASaveThatFailsDropsTheKeysTypedMeanwhile() {
        let keys = Self.typing("Title") + [.enter, .escape, .character("n")] + Self.typing("screen-3") + [.enter]
        let enter = 5
        for finishing in Array(enter..<keys.count) {
            let typed = run(keys, finishingAfter: finishing) {
                let harness = newItemForm()
                harness.failingSaves = 1
                return harness
            }
            // The reference: the failure shows at once, then only the keys after `finishing` come.
            let reference = newItemForm()
            reference.failingSaves = 1
            reference.press(Array(keys[...enter]))
            reference.finishWork()
            for key in keys[(finishing + 1)...] {
                reference.press(key)
                reference.finishWork()
            }
            let label = "save failing after key \(finishing)"
            XCTAssertEqual(typed.sortedTitles, reference.sortedTitles, label)
            XCTAssertEqual(typed.state.page, reference.state.page, label)
            XCTAssertEqual(typed.state.overlay, reference.state.overlay, label)
        }

        // Everything typed before the failure came: nothing of it applies, the error shows.
        let typed = run(keys, finishingAfter: nil) {
            let harness = newItemForm()
            harness.failingSaves = 1
            return harness
        }
        XCTAssertEqual(typed.sortedTitles, newItemForm().sortedTitles, "nothing saved")
        guard case .form(let form) = typed.state.page else { return XCTFail("the form closed: \(typed.state.page)") }
        XCTAssertEqual(form.text(.title), "Title")
        XCTAssertEqual(form.formProblems, ["The disk is full."])
        XCTAssertNil(typed.state.overlay)
    }

    /// The edited item was removed elsewhere: the question to keep it as new is the form's own, and
    /// the keys typed before it was asked do not answer it.
    func testKeysTypedBeforeAKeepAsNewQuestionDoNotAnswerIt() {
        var detail = Fixtures.unlocked()
        detail.list.selectedID = Fixtures.bank.id
        detail.page = .detail(DetailState(itemID: Fixtures.bank.id))
        let edit = Harness(detail)
        edit.failingSaves = 1
        edit.saveFailure = .removedMeanwhile
        edit.press([.character("e"), .end] + Self.typing("!") + [.enter, .escape, .character("y"), .character("n")])
        edit.finishWork()
        guard case .confirm(let confirmation) = edit.state.overlay, case .keepAsNewItem = confirmation.action else {
            return XCTFail("no question: \(String(describing: edit.state.overlay))")
        }
        guard case .form = edit.state.page else { return XCTFail("the form closed") }
        XCTAssertEqual(edit.titles[Fixtures.bank.id], "Bank", "nothing saved")
        XCTAssertEqual(edit.titles.count, Fixtures.items.count, "nothing kept as new")
    }

    /// `d y` on a detail, then keys for the list the deletion leads to: they move and open there.
    func testKeysTypedAheadOfADeletionActOnTheList() {
        func detail() -> Harness {
            var state = Fixtures.unlocked()
            state.list.selectedID = Fixtures.bank.id
            state.page = .detail(DetailState(itemID: Fixtures.bank.id))
            return Harness(state)
        }
        let keys: [Key] = [.character("d"), .character("y"), .character("j"), .enter]
        let atOnce = detail()
        for key in keys {
            atOnce.press(key)
            atOnce.finishWork()
        }
        XCTAssertNil(atOnce.titles[Fixtures.bank.id])
        guard case .detail(let shown) = atOnce.state.page else { return XCTFail("no detail: \(atOnce.state.page)") }
        XCTAssertNotEqual(shown.itemID, Fixtures.bank.id)
        for finishing in [nil] + Array(1..<keys.count) {
            let typed = run(keys, finishingAfter: finishing, from: detail)
            assertState(typed.state, equals: atOnce.state)
        }
    }

    /// `v` then keys for the review page: they move and accept there, not on the list.
    func testKeysTypedAheadOfTheReviewsActOnThem() {
        let keys: [Key] = [.character("v"), .character("j"), .character("j"), .character("j"), .character("a")]
        let atOnce = Harness(Fixtures.unlocked())
        for key in keys {
            atOnce.press(key)
            atOnce.finishWork()
        }
        guard case .review(let review) = atOnce.state.page else { return XCTFail("no review page: \(atOnce.state.page)") }
        XCTAssertEqual(review.reviews.map(\.itemID), ["a1"], "the fourth row (Bank's) was accepted")
        for finishing in [nil] + Array(0..<keys.count) {
            let typed = run(keys, finishingAfter: finishing) { Harness(Fixtures.unlocked()) }
            assertState(typed.state, equals: atOnce.state)
        }
    }

    /// A question belongs to the page it was asked on: when that page goes (here the item was
    /// deleted elsewhere under its detail), the question goes with it.
    func testAQuestionGoesWithItsPage() {
        var state = Fixtures.unlocked()
        state.list.selectedID = Fixtures.bank.id
        state.page = .detail(DetailState(itemID: Fixtures.bank.id))
        _ = Update.apply(.key(.character("d")), to: &state, now: FakeClock.start)
        XCTAssertNotNil(state.overlay)
        let remaining = Fixtures.items.filter { $0.id != Fixtures.bank.id }
        _ = Update.apply(.reloaded(items: remaining, summary: Fixtures.summary), to: &state, now: FakeClock.start)
        XCTAssertEqual(state.page, .list)
        XCTAssertNil(state.overlay, "a question about an item that is gone, over a page it was not asked on")
        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: FakeClock.start), [])
    }

    /// A reload whose listing was read before this screen's save landed after it (the vault's
    /// actor ran the listing first, its answer came second): the saved item stays, with its page,
    /// and is not called deleted elsewhere; a listing read after the save still closes the page of
    /// an item that is really gone. Seen once in CI with commands writing beside the screen: the
    /// screen fell back to the list without "Saved “screen-7”".
    func testAListingReadBeforeASaveDoesNotUndoItOnTheScreen() throws {
        let saved = newItemForm()
        saved.press(Self.typing("Fresh") + [.enter])
        let writesBefore = saved.state.localWrites
        saved.finishWork()
        guard case .detail(let detail) = saved.state.page, let id = Optional(detail.itemID) else {
            return XCTFail("no detail after the save: \(saved.state.page)")
        }
        XCTAssertEqual(saved.state.localWrites, writesBefore + 1)
        var state = saved.state
        _ = Update.apply(.reloaded(items: Fixtures.items, summary: Fixtures.summary, writesSeen: writesBefore), to: &state,
                         now: FakeClock.start)
        XCTAssertEqual(state.page, .detail(DetailState(itemID: id)), "a stale listing closed the saved item's page")
        XCTAssertNotNil(state.item(id))
        XCTAssertFalse(state.notice?.text.contains("deleted") ?? false, state.notice?.text ?? "")
        _ = Update.apply(.reloaded(items: Fixtures.items, summary: Fixtures.summary, writesSeen: state.localWrites), to: &state,
                         now: FakeClock.start)
        XCTAssertEqual(state.page, .list, "a listing read after the save that lacks the item: it is gone")
    }

    /// The frame once a save ends that Esc came during: the list on the new item, no question
    /// (before issue 30's fix, "Discard your changes?" over the new item's detail).
    func testNoQuestionIsDrawnOnceTheSaveEnds() {
        let typed = newItemForm()
        typed.press(Self.typing("Title") + [.enter, .escape])
        typed.finishWork()
        let frame = Render.frame(typed.state, size: .standard, now: typed.clock.now)
        XCTAssertFalse(frame.text.contains("Discard"), frame.text)
        assertSnapshot(frame, named: "typed-ahead-closed-after-save")
    }
}
