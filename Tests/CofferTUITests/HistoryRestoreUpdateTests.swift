import CofferCore
import Foundation
import XCTest
@testable import CofferTUI

/// `R` on an item's page puts back its fields as they were before the last change, after asking
/// (issue 43): saved as an edit from the item as it is, so the entry it replaces goes into the
/// history and `R` again undoes the restore.
final class HistoryRestoreUpdateTests: XCTestCase {
    private func mailChanged() -> Item {
        var mail = Fixtures.mail
        mail.replaceEntry(with: Entry(username: "alice@example.org", password: "n3w p@ss"), at: Fixtures.mail.modified)
        return mail
    }

    private func driverOnMailsPage(_ mail: Item) -> Driver {
        var items = Fixtures.items
        items[2] = ScreenItem(mail, hasLocalChange: true)
        var state = Fixtures.unlocked(items: items)
        state.list.selectedID = mail.id
        state.page = .detail(DetailState(itemID: mail.id))
        return Driver(state)
    }

    func testRAsksFirstThenSavesTheEntryFromBeforeTheLastChange() throws {
        let mail = mailChanged()
        let driver = driverOnMailsPage(mail)
        let question = "Put back password as before the change of "
            + Format.dateTime(Fixtures.mail.modified, in: driver.state.settings.timeZone) + "?"
        driver.press(.character("R")) { state in
            state.overlay = .confirm(Confirmation(question: question, action: .restoreEntry(id: mail.id),
                                                  askedOn: .detail(itemID: mail.id)))
        }
        driver.press(.character("n")) { $0.overlay = nil }
        _ = Update.apply(.key(.character("R")), to: &driver.state, now: driver.clock.now)
        var restored = mail
        restored.entry = Fixtures.mail.entry
        driver.press(.character("y"), effects: [.saveItem(restored, base: mail)]) { $0.overlay = nil }
    }

    func testRWithoutAnEarlierEntrySaysSo() {
        let driver = driverOnMailsPage(Fixtures.mail)
        driver.press(.character("R")) { state in
            state.notice = Notice("The item has no earlier entry.", until: driver.clock.now.addingTimeInterval(5))
        }
    }

    func testARestoreThatFailsIsSaidInTheNoticeLine() {
        let driver = driverOnMailsPage(mailChanged())
        driver.send(.itemSaveFailed(.removedMeanwhile)) { state in
            state.notice = Notice("Not saved: another process removed the item.", isError: true,
                                  until: driver.clock.now.addingTimeInterval(Notice.lifetime))
        }
    }

    func testTheRestoredEntryIsTheOneBeforeTheChange() throws {
        let restored = try XCTUnwrap(ItemHistory.restoring(1, of: mailChanged()))
        XCTAssertEqual(restored.entry, Fixtures.mail.entry)
        XCTAssertNil(ItemHistory.restoring(2, of: mailChanged()))
        XCTAssertNil(ItemHistory.restoring(1, of: Fixtures.mail))
    }
}
