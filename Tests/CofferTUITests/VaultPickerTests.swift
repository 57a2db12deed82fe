import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// The vault picker (`V`, F3 locked): what it lists, switching the screen to another vault (the
/// keys typed meanwhile dropped, a lock meanwhile respected), and the title bar that names the
/// vault on the screen. Pure `Update` and `Render`; `VaultSwitchRuntimeTests` drives real files.
final class VaultPickerTests: XCTestCase {
    let now = FakeClock.start
    static let familyPath = "/home/alice/.local/share/coffer/family.db"
    static let workPath = "/home/alice/.local/share/coffer/work.db"

    static let choices = [
        VaultChoice(path: Fixtures.vaultPath, sharedName: nil, items: 7, access: .open, isCurrent: true),
        VaultChoice(path: familyPath, sharedName: "family", items: 12, access: .opensWithoutAsking, isCurrent: false),
        VaultChoice(path: workPath, sharedName: "wo\u{1B}[2Jrk\u{202E}", items: 3, access: .locked, isCurrent: false),
        VaultChoice(path: "/home/alice/.local/share/coffer/old.db", sharedName: nil, items: nil, access: .locked,
                    isCurrent: false, problem: "The file is not a vault."),
    ]

    /// The list with the picker open and its listing in.
    func pickerState() -> ScreenState {
        var state = Fixtures.unlocked()
        XCTAssertEqual(Update.apply(.key(.character("V")), to: &state, now: now), [.loadVaults])
        XCTAssertEqual(Update.apply(.vaultsLoaded(Self.choices), to: &state, now: now), [])
        return state
    }

    func familySummary() -> VaultSummary {
        var summary = VaultSummary(items: 1, account: "alice")
        summary.share = SharedVaultSummary(name: "family", members: [])
        return summary
    }

    // MARK: The title bar

    func testTheTitleBarNamesThePersonalVault() {
        let title = Render.frame(Fixtures.unlocked(), size: .standard, now: now).text.split(separator: "\n")[0]
        XCTAssertTrue(title.hasPrefix(" Coffer · vault.db · personal "), String(title))
        var hostile = Fixtures.locked()
        hostile.vaultName = "va\u{1B}]52;c;eA==\u{07}ult.db"
        let text = Render.frame(hostile, size: .standard, now: now).text
        XCTAssertTrue(text.hasPrefix(" Coffer · va\\e]52;c;eA==\\ault.db · personal"), text)
        XCTAssertFalse(text.contains("\u{1B}") || text.contains("\u{07}"), "a raw control reached the grid")
    }

    // MARK: The page

    func testThePickerListsEveryVaultWithItsCountAndLock() {
        var state = pickerState()
        XCTAssertEqual(state.page.identity, .vaults)
        XCTAssertFalse(state.isLocked)
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "vaults")
        let text = Render.frame(state, size: .standard, now: now).text
        XCTAssertTrue(text.contains("wo\\e[2Jrk\\u202E · shared"), text)
        XCTAssertFalse(text.contains("\u{1B}") || text.contains("\u{202E}"), "a raw control reached the grid")
        XCTAssertTrue(KeyBindings.hints(for: state).contains("↵ open"))
    }

    /// A listing read again keeps the cursor on its vault, wherever the vault moved.
    func testTheCursorFollowsItsVaultAcrossListings() {
        var state = pickerState()
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        _ = Update.apply(.vaultsLoaded([Self.choices[0], Self.choices[2], Self.choices[1]]), to: &state, now: now)
        guard case .vaults(let page) = state.page else { return XCTFail("left the picker") }
        XCTAssertEqual(page.current?.path, Self.familyPath)
    }

    /// While it shows, the page reads the vaults again every 2 s (another process writes to them).
    func testThePickerReadsTheVaultsAgainWhileItShows() {
        var state = pickerState()
        XCTAssertFalse(Update.apply(.tick, to: &state, now: now.addingTimeInterval(1)).contains(.loadVaults))
        XCTAssertTrue(Update.apply(.tick, to: &state, now: now.addingTimeInterval(2)).contains(.loadVaults))
        XCTAssertFalse(Update.apply(.tick, to: &state, now: now.addingTimeInterval(3)).contains(.loadVaults), "not every tick")
        _ = Update.apply(.key(.escape), to: &state, now: now.addingTimeInterval(3))
        XCTAssertEqual(state.page, .list)
        XCTAssertFalse(Update.apply(.tick, to: &state, now: now.addingTimeInterval(9)).contains(.loadVaults), "closed: no reads")
    }

    func testAVaultThatCannotBeReadIsNotOpened() {
        var state = pickerState()
        _ = Update.apply(.key(.end), to: &state, now: now)
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: now), [])
        XCTAssertEqual(state.notice?.text, "This vault cannot be opened: The file is not a vault.")
    }

    func testEnterOnTheVaultShownGoesBack() {
        var state = pickerState()
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: now), [])
        XCTAssertEqual(state.page, .list)
        XCTAssertNil(state.awaiting)
    }

    // MARK: Switching

    /// Enter on another vault: the switch runs; keys typed meanwhile are dropped (they were meant
    /// for this vault); the new vault's list shows, its title says so, and it syncs as an unlock does.
    func testSwitchingShowsTheOtherVaultAndDropsTheKeysTypedMeanwhile() {
        var state = pickerState()
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: now), [.switchVault(path: Self.familyPath)])
        XCTAssertEqual(state.awaiting, AwaitedWork(.vaultSwitch))
        XCTAssertTrue(Render.frame(state, size: .standard, now: now).text.contains("Opening…"))
        XCTAssertEqual(Update.apply(.key(.character("d")), to: &state, now: now), [], "kept, not acted on")
        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: now), [])

        let netflix = ScreenItem(Item(id: "n1", title: "Netflix", entry: Entry(username: "ann", password: "pw"),
                                      created: Fixtures.timestamp("2026-11-01T08:00:00.000Z")))
        let effects = Update.apply(.vaultSwitched(path: Self.familyPath, summary: familySummary(), items: [netflix]),
                                   to: &state, now: now)
        XCTAssertEqual(effects, [.reload, .redraw, .startSync(.unlock)])
        XCTAssertNil(state.awaiting)
        XCTAssertNil(state.overlay, "the d and y typed during the switch asked nothing")
        XCTAssertEqual(state.page, .list)
        XCTAssertEqual(state.items, [netflix])
        XCTAssertEqual(state.vaultPath, Self.familyPath)
        XCTAssertEqual(state.vaultTitle, "family · shared")
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "vault-switched")
    }

    /// A vault the kept keys do not open shows its own passphrase prompt.
    func testAVaultOfAnotherPassphraseOpensLocked() {
        var state = pickerState()
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: now), [.switchVault(path: Self.workPath)])
        var summary = VaultSummary(items: 3)
        summary.share = SharedVaultSummary(name: "work", members: [])
        let effects = Update.apply(.vaultSwitched(path: Self.workPath, summary: summary, items: nil), to: &state, now: now)
        XCTAssertEqual(effects, [.redraw], "no account: no sync; locked: no reload of items")
        XCTAssertEqual(state.page, .locked(UnlockPrompt()))
        XCTAssertTrue(state.items.isEmpty)
        XCTAssertTrue(Render.frame(state, size: .standard, now: now).text.contains("🔒 work · shared is locked"))
    }

    /// L during the switch: the wait ends with the lock, and the vault that arrives opened is locked again.
    func testALockDuringTheSwitchWins() {
        var state = pickerState()
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        _ = Update.apply(.key(.enter), to: &state, now: now)
        XCTAssertTrue(Update.lock(&state, now: now, reason: nil).contains(.lockVault))
        let effects = Update.apply(.vaultSwitched(path: Self.familyPath, summary: familySummary(),
                                                  items: [ScreenItem(Fixtures.bank)]), to: &state, now: now)
        XCTAssertTrue(effects.contains(.lockVault), "the kept keys opened it; the lock asked for comes first")
        XCTAssertTrue(state.isLocked)
        XCTAssertTrue(state.items.isEmpty)
        XCTAssertEqual(state.vaultPath, Self.familyPath, "the runtime has the new vault: the screen names it")
    }

    func testAFailedSwitchStaysAndSaysWhy() {
        var state = pickerState()
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        _ = Update.apply(.key(.enter), to: &state, now: now)
        XCTAssertEqual(Update.apply(.vaultSwitchFailed("The vault is busy."), to: &state, now: now), [])
        XCTAssertNil(state.awaiting)
        XCTAssertEqual(state.page.identity, .vaults)
        XCTAssertEqual(state.notice?.text, "The vault is busy.")
        XCTAssertEqual(state.vaultPath, Fixtures.vaultPath)
    }

    // MARK: Locked

    /// F3 on the locked page (its letters are the passphrase's): the vaults without a key; Esc back.
    func testThePickerOpensLocked() {
        var state = Fixtures.locked()
        XCTAssertTrue(KeyBindings.hints(for: state).contains("F3 vaults"))
        XCTAssertEqual(Update.apply(.key(.character("V")), to: &state, now: now), [], "V is typed into the passphrase")
        XCTAssertEqual(Update.apply(.key(.function(3)), to: &state, now: now), [.loadVaults])
        XCTAssertTrue(state.isLocked, "the vault stays locked")
        var locked = Self.choices
        locked[0].access = .locked
        locked[1].access = .locked
        _ = Update.apply(.vaultsLoaded(locked), to: &state, now: now)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "vaults-locked")
        XCTAssertEqual(Update.apply(.tick, to: &state, now: now.addingTimeInterval(3600)).contains(.lockVault), false)
        _ = Update.apply(.key(.escape), to: &state, now: now)
        XCTAssertEqual(state.page, .locked(UnlockPrompt()), "back to the prompt; what was typed before is dropped")
    }

    func testNotWhileAnUnlockDerivesItsKeys() {
        var state = Fixtures.locked()
        state.busy = Busy(.unlocking, since: now)
        XCTAssertEqual(Update.apply(.key(.function(3)), to: &state, now: now), [])
        XCTAssertEqual(state.page.identity, .locked)
    }

    /// From a form, F3 (V is typed into it) opens the picker at once when nothing changed, and
    /// asks first when something did, as Esc does: a no keeps the form and its text.
    func testFromAFormThePickerAsksBeforeDroppingChanges() {
        var state = Fixtures.unlocked()
        _ = Update.apply(.key(.character("e")), to: &state, now: now)
        XCTAssertEqual(Update.apply(.key(.function(3)), to: &state, now: now), [.loadVaults], "unchanged: nothing to lose")
        XCTAssertEqual(state.page.identity, .vaults)

        state = Fixtures.unlocked()
        _ = Update.apply(.key(.character("e")), to: &state, now: now)
        XCTAssertEqual(Update.apply(.key(.character("V")), to: &state, now: now), [])
        guard case .form(let typed) = state.page else { return XCTFail("the form closed") }
        XCTAssertTrue(typed.text(.title).hasSuffix("V"), "typed into the title")
        XCTAssertEqual(Update.apply(.key(.function(3)), to: &state, now: now), [])
        guard case .confirm(let question) = state.overlay else { return XCTFail("nothing asked") }
        XCTAssertEqual(question.question, "Discard your changes and open the vaults?")
        XCTAssertEqual(Update.apply(.key(.character("n")), to: &state, now: now), [])
        guard case .form(let kept) = state.page else { return XCTFail("a no closed the form") }
        XCTAssertTrue(kept.text(.title).hasSuffix("V"), "the change is still there")
        _ = Update.apply(.key(.function(3)), to: &state, now: now)
        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: now), [.loadVaults])
        XCTAssertEqual(state.page.identity, .vaults)
    }

    func testHelpListsThePickerKeys() {
        var state = Fixtures.unlocked()
        state.overlay = .help
        XCTAssertTrue(Render.frame(state, size: .standard, now: now).text.contains("V F3        Vaults: yours and shared"))
        state = pickerState()
        state.overlay = .help
        let help = Render.frame(state, size: .standard, now: now).text
        XCTAssertTrue(help.contains("Keys · Vaults") && help.contains("Open this vault"), help)
    }
}
