import CofferCore
import XCTest
@testable import CofferTUI

/// What the screen does about other processes on its vault: reload on their commits, keep the
/// page, the filter and an open form, merge a stale edit, and offer to keep an edit of an item
/// they removed.
final class SharedVaultUpdateTests: XCTestCase {
    func testAnotherProcesssCommitReloadsLockedOrNot() {
        var locked = Fixtures.unlocked()
        locked.page = .locked(UnlockPrompt())
        XCTAssertEqual(Update.apply(.vaultChangedElsewhere, to: &locked, now: Date()), [.reload])
        var unlocked = Fixtures.unlocked()
        XCTAssertEqual(Update.apply(.vaultChangedElsewhere, to: &unlocked, now: Date()), [.reload])
        var firstRun = ScreenState(vaultPath: "/tmp/none.db", summary: nil, now: Date())
        XCTAssertEqual(Update.apply(.vaultChangedElsewhere, to: &firstRun, now: Date()), [])
    }

    /// A reload with another process's new item keeps the filter, the selection and the open form.
    func testAReloadKeepsTheFilterSelectionAndAnOpenForm() {
        var state = Fixtures.unlocked()
        state.list.filter = TextField("a")
        state.list.selectedID = Fixtures.bank.id
        var form = ItemForm(editing: Fixtures.bank)
        form.texts[.title] = TextField("Bank (typing)")
        form.hasChanges = true
        state.page = .form(form)
        var added = Fixtures.items
        added.append(ScreenItem(Item(id: "new-elsewhere", title: "Added elsewhere", created: Fixtures.bank.created)))
        _ = Update.apply(.reloaded(items: added, summary: Fixtures.summary), to: &state, now: Date())
        XCTAssertEqual(state.page, .form(form))
        XCTAssertEqual(state.list.filter.text, "a")
        XCTAssertEqual(state.list.selectedID, Fixtures.bank.id)
        XCTAssertTrue(state.items.contains { $0.id == "new-elsewhere" })
    }

    /// The form saves against the version it was opened on, even after a reload brought a newer one.
    func testTheFormSavesWithItsBaseNotTheReloadedVersion() {
        var state = Fixtures.unlocked()
        state.page = .detail(DetailState(itemID: Fixtures.bank.id))
        _ = Update.apply(.key(.character("e")), to: &state, now: Date())
        var newer = Fixtures.bank
        newer.entry.username = "changed elsewhere"
        var items = Fixtures.items
        items[items.firstIndex { $0.id == Fixtures.bank.id }!] = ScreenItem(newer)
        _ = Update.apply(.reloaded(items: items, summary: Fixtures.summary), to: &state, now: Date())
        _ = Update.apply(.key(.character("!")), to: &state, now: Date())
        let effects = Update.apply(.key(.enter), to: &state, now: Date())
        var expected = Fixtures.bank
        expected.title += "!"
        XCTAssertEqual(effects, [.saveItem(expected, base: Fixtures.bank)])
    }

    func testASaveMergedWithAnotherChangeSaysSo() {
        var state = Fixtures.unlocked()
        _ = Update.apply(.itemSaved(Fixtures.bank, mergedConflicts: []), to: &state, now: Date())
        XCTAssertEqual(state.notice?.text, "Saved “Bank”, merged with a change made elsewhere meanwhile.")
        _ = Update.apply(.itemSaved(Fixtures.bank, mergedConflicts: ["username"]), to: &state, now: Date())
        XCTAssertEqual(state.notice?.text,
                       "Saved “Bank”; username also changed elsewhere: yours kept, the other value in history (⚑, v to review).")
    }

    /// Removed elsewhere while the form was open: the save asks whether to keep it as a new item.
    func testAnEditOfAnItemRemovedElsewhereOffersToKeepItAsNew() {
        var state = Fixtures.unlocked()
        state.page = .detail(DetailState(itemID: Fixtures.bank.id))
        _ = Update.apply(.key(.character("e")), to: &state, now: Date())
        _ = Update.apply(.key(.character("!")), to: &state, now: Date())
        // The vault refuses the save: the item went between the last reload and the save.
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: Date()).count, 1)
        _ = Update.apply(.itemSaveFailed(.removedMeanwhile), to: &state, now: Date())
        var kept = Fixtures.bank
        kept.title += "!"
        XCTAssertEqual(state.overlay, .confirm(Confirmation(
            question: "“Bank!” was removed elsewhere. Keep your version as a new item?", action: .keepAsNewItem(kept),
            askedOn: .form(itemID: Fixtures.bank.id))))
        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: Date()), [.saveItem(kept, base: nil)])
        guard case .form = state.page else { return XCTFail("the form closed") }
        XCTAssertTrue(state.isSaving)
        let created = Item(id: "fresh", title: kept.title, created: kept.created)
        _ = Update.apply(.itemSaved(created), to: &state, now: Date())
        XCTAssertEqual(state.page, .detail(DetailState(itemID: "fresh")))
    }

    /// A reload already showed the item gone: saving asks at once, without a round trip.
    func testAnEditOfAnItemTheListNoLongerHoldsAsksAtOnce() {
        var state = Fixtures.unlocked()
        state.page = .detail(DetailState(itemID: Fixtures.bank.id))
        _ = Update.apply(.key(.character("e")), to: &state, now: Date())
        _ = Update.apply(.key(.character("!")), to: &state, now: Date())
        let remaining = Fixtures.items.filter { $0.id != Fixtures.bank.id }
        _ = Update.apply(.reloaded(items: remaining, summary: Fixtures.summary), to: &state, now: Date())
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: Date()), [])
        guard case .confirm(let confirmation)? = state.overlay, case .keepAsNewItem = confirmation.action else {
            return XCTFail("no offer to keep the edit: \(String(describing: state.overlay))")
        }
        XCTAssertEqual(Update.apply(.key(.character("n")), to: &state, now: Date()), [])
        guard case .form = state.page else { return XCTFail("declining closed the form") }
    }
}
