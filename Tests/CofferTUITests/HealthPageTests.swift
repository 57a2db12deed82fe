import CofferCore
import Foundation
import XCTest
@testable import CofferTUI

/// The Health page (`H`): the check runs off the loop, the page lists the items worst first,
/// Enter opens one (its detail says what is wrong) and Esc comes back; locking forgets it all.
final class HealthPageTests: XCTestCase {
    let now = FakeClock.start

    /// The fixtures plus a second item with Bank's password, so one pair is reused.
    static var items: [ScreenItem] {
        var shop = Fixtures.bank
        shop.id = "h8"
        shop.title = "Shop"
        return Fixtures.items + [ScreenItem(shop)]
    }

    func healthPage() throws -> ScreenState {
        var state = Fixtures.unlocked(items: Self.items)
        XCTAssertEqual(Update.apply(.key(.character("H")), to: &state, now: now), [.checkHealth])
        XCTAssertEqual(state.page, .health(HealthState(isChecking: true)))
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "health-checking")
        let findings = try HealthFindings.check(state.items.compactMap(\.item), now: now)
        XCTAssertEqual(Update.apply(.healthChecked(findings), to: &state, now: now), [])
        return state
    }

    func testHealthListsWeakReusedAndOldPasswordsWorstFirst() throws {
        let state = try healthPage()
        guard let findings = state.health else { return XCTFail("no findings kept") }
        XCTAssertEqual(findings.checkedCount, 7, "every item with a password, not the one waiting for its key")
        XCTAssertEqual(findings.rows.prefix(3).map(\.itemID), ["b2", "d4", "h8"],
                       "two problems each (weak and reused, weak and old) come first, by title")
        let bank = findings.rows.first { $0.itemID == "b2" }
        XCTAssertTrue(bank?.problems.contains(.reused(others: 1)) == true, "\(String(describing: bank))")
        XCTAssertNil(findings.rows.first { $0.itemID == "f6" }, "a long passphrase is not listed")
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "health")
    }

    func testEnterOpensTheItemAndEscapeComesBack() throws {
        var state = try healthPage()
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        guard case .health(let page) = state.page, let row = state.health?.rows[page.cursor] else {
            return XCTFail("not on the Health page")
        }
        _ = Update.apply(.key(.enter), to: &state, now: now)
        guard case .detail(let detail) = state.page else { return XCTFail("Enter did not open the item") }
        XCTAssertEqual(detail.itemID, row.itemID)
        let frame = Render.frame(state, size: .standard, now: now).text
        XCTAssertTrue(frame.contains("⚠ password " + HealthFindings.describe(row.problems, in: Fixtures.utc)), frame)
        _ = Update.apply(.key(.escape), to: &state, now: now)
        XCTAssertEqual(state.page, .health(page), "back on the Health page, cursor kept")
    }

    /// A password changed since the check: its detail no longer shows the old finding.
    func testAChangedPasswordDropsItsBadge() throws {
        var state = try healthPage()
        var bank = Fixtures.bank
        var entry = bank.entry
        entry.password = "a much longer and better passphrase"
        bank.replaceEntry(with: entry, at: Timestamp(now))
        state.items = state.items.map { $0.id == "b2" ? ScreenItem(bank) : $0 }
        state.page = .detail(DetailState(itemID: "b2"))
        XCTAssertFalse(Render.frame(state, size: .standard, now: now).text.contains("⚠ password"))
    }

    func testReloadOnTheHealthPageChecksAgainAndLockForgets() throws {
        var state = try healthPage()
        let effects = Update.apply(.reloaded(items: Self.items, summary: Fixtures.summary), to: &state, now: now)
        XCTAssertEqual(effects, [.checkHealth], "another process's change: the page checks again")
        _ = Update.apply(.key(.character("L")), to: &state, now: now)
        XCTAssertNil(state.health, "locking drops the findings (they hold titles)")
        let late = try HealthFindings.check(Self.items.compactMap(\.item), now: now)
        _ = Update.apply(.healthChecked(late), to: &state, now: now)
        XCTAssertNil(state.health, "a check that ends after the lock is dropped")
    }
}
