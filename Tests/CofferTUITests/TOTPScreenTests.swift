import CofferCore
import CofferTestSupport
import XCTest
@testable import CofferTUI

/// The live TOTP code on the detail page, the key that copies it, and the form's TOTP field; codes
/// are checked against Debian's `oathtool` at the fixture clock.
final class TOTPScreenTests: XCTestCase {
    static let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    private func state(totp: String? = TOTPScreenTests.secret) -> ScreenState {
        var bank = Fixtures.bank
        bank.entry.totp = totp
        var state = Fixtures.unlocked(items: [ScreenItem(bank), ScreenItem(Fixtures.mail)])
        state.list.selectedID = "b2"
        return state
    }

    private func reference(at now: Date) throws -> String {
        try Oathtool.totp(base32: Self.secret, algorithm: "sha1", digits: 6, period: 30, at: now)
    }

    func testTCopiesTheCurrentCodeAndStartsTheCountdown() throws {
        let driver = Driver(state())
        driver.clock.advance(12)
        let code = try reference(at: driver.clock.now)
        let now = driver.clock.now
        driver.press(.character("T"), effects: [.copyToClipboard(SecretText(code))]) { state in
            state.clipboard = ClipboardCountdown(field: .totp, until: now.addingTimeInterval(10))
            state.notice = Notice("Copied the TOTP code of “Bank”.", until: now.addingTimeInterval(5))
        }
    }

    func testTOnAnItemWithoutASecretSaysWhy() {
        let driver = Driver(state(totp: nil))
        driver.press(.character("T")) { $0.notice = Notice("The item has no TOTP secret.", until: FakeClock.start.addingTimeInterval(5)) }
        let broken = Driver(state(totp: "not base32!"))
        broken.press(.character("T")) { state in
            state.notice = Notice("The TOTP secret is invalid: the secret is not base32 (letters A to Z and digits 2 to 7).",
                                  until: FakeClock.start.addingTimeInterval(5))
        }
    }

    func testTheDetailPageShowsTheLiveCodeAndCountsDown() throws {
        var state = state()
        state.page = .detail(DetailState(itemID: "b2"))
        let detail = DetailState(itemID: "b2")
        let row = try XCTUnwrap(state.item("b2"))
        for offset in [0.0, 7, 29.5, 30, 95] {
            let now = FakeClock.start.addingTimeInterval(offset)
            let code = try reference(at: now)
            let left = 30 - Int(now.timeIntervalSince1970) % 30
            let line = try XCTUnwrap(DetailLayout.lines(for: row, state: state, detail: detail, now: now).first { $0.label == "TOTP" })
            XCTAssertEqual(line.text, "\(code.prefix(3)) \(code.suffix(3))  \(left) s left  (T copies)", "at +\(offset) s")
        }
        let withoutSecret = try XCTUnwrap(self.state(totp: nil).item("b2"))
        XCTAssertFalse(DetailLayout.lines(for: withoutSecret, state: state, detail: detail, now: FakeClock.start)
            .contains { $0.label == "TOTP" })
    }

    /// The last sync measured the server's clock 10 min ahead (a wrong or hostile `Date`): the page
    /// and the copy key still give the code of this device's clock, as every authenticator does,
    /// and the page says the clocks differ.
    func testCodesFollowTheDeviceClockAndWarnWhenTheServerDisagrees() throws {
        var state = state()
        state.summary.clockSkewMilliseconds = 600_000
        state.page = .detail(DetailState(itemID: "b2"))
        let now = FakeClock.start.addingTimeInterval(3)
        let deviceCode = try reference(at: now)
        XCTAssertNotEqual(deviceCode, try reference(at: now.addingTimeInterval(600)), "the fixture's two times give the same code")
        let row = try XCTUnwrap(state.item("b2"))
        let lines = DetailLayout.lines(for: row, state: state, detail: DetailState(itemID: "b2"), now: now)
        let index = try XCTUnwrap(lines.firstIndex { $0.label == "TOTP" })
        XCTAssertTrue(lines[index].text.hasPrefix("\(deviceCode.prefix(3)) \(deviceCode.suffix(3))"), lines[index].text)
        XCTAssertTrue(lines[index + 1].text.contains("10 min ahead of this device's"), lines[index + 1].text)
        XCTAssertEqual(Update.copy(.totp, in: &state, now: now), [.copyToClipboard(SecretText(deviceCode))])

        // Within one period of each other the clocks agree well enough: no warning.
        state.summary.clockSkewMilliseconds = 20_000
        let quiet = DetailLayout.lines(for: row, state: state, detail: DetailState(itemID: "b2"), now: now)
        XCTAssertFalse(quiet.contains { $0.text.contains("clock") }, "\(quiet.map(\.text))")
    }

    func testSavingOtherFieldsKeepsTheStoredSecretAsItWas() {
        var state = state(totp: "  gezd gnbv gy3t qojq \n")
        state.page = .detail(DetailState(itemID: "b2"))
        let driver = Driver(state)
        _ = Update.apply(.key(.character("e")), to: &driver.state, now: driver.clock.now)
        _ = Update.apply(.key(.tab), to: &driver.state, now: driver.clock.now)
        driver.type("2")
        let effects = Update.apply(.key(.enter), to: &driver.state, now: driver.clock.now)
        guard case .saveItem(let saved, _)? = effects.first else { return XCTFail("not saved: \(effects)") }
        XCTAssertEqual(saved.entry.username, "alice.smith2")
        XCTAssertEqual(saved.entry.totp, "  gezd gnbv gy3t qojq \n", "blanks around the secret are no change")
    }

    func testTheFormRefusesASecretThatGivesNoCode() {
        var state = state()
        state.page = .detail(DetailState(itemID: "b2"))
        let driver = Driver(state)
        _ = Update.apply(.key(.character("e")), to: &driver.state, now: driver.clock.now)
        for _ in 0..<3 { _ = Update.apply(.key(.tab), to: &driver.state, now: driver.clock.now) }
        guard case .form(let opened) = driver.state.page else { return XCTFail("no form") }
        XCTAssertEqual(opened.focus, .totp)
        XCTAssertEqual(opened.text(.totp), Self.secret, "the form starts from the item's secret")
        driver.type("1")
        let effects = Update.apply(.key(.enter), to: &driver.state, now: driver.clock.now)
        XCTAssertEqual(effects, [])
        guard case .form(let form) = driver.state.page else { return XCTFail("the form closed") }
        XCTAssertEqual(form.problems[.totp], ["The secret is not base32 (letters A to Z and digits 2 to 7)."])
        XCTAssertEqual(form.focus, .totp)
    }
}
