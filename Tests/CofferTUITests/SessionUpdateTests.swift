import CofferCore
import CofferSync
import XCTest
@testable import CofferTUI

/// Creating, unlocking and locking, asserted as whole states after each event.
final class SessionUpdateTests: XCTestCase {
    func testFirstRunCreatesTheVaultFromAPassphraseTypedTwice() {
        let driver = Driver(Fixtures.firstRun())
        driver.type("horse")
        var form = NewVaultForm()
        form.passphrase = "horse"
        assertState(driver.state, equals: { var s = Fixtures.firstRun(); s.page = .firstRun(form); return s }())

        driver.press(.enter) { state in
            form.focus = .repetition
            state.page = .firstRun(form)
        }
        driver.type("horse")
        driver.press(.enter, effects: [.createVault(passphrase: "horse")]) { state in
            state.page = .firstRun(NewVaultForm())
            state.busy = Busy(.creatingVault, since: FakeClock.start)
        }
        driver.clock.advance(1)
        let created = VaultSummary()
        driver.send(.vaultCreated(created)) { state in
            state.busy = nil
            state.summary = created
            state.page = .list
            state.lastInput = driver.clock.now
            state.notice = Notice("Vault created. Press n to add an item.", until: driver.clock.now.addingTimeInterval(5))
        }
    }

    func testFirstRunWithDifferentPassphrasesAsksAgain() {
        let driver = Driver(Fixtures.firstRun())
        driver.type("one")
        _ = Update.apply(.key(.enter), to: &driver.state, now: driver.clock.now)
        driver.type("two")
        driver.press(.enter) { state in
            var form = NewVaultForm()
            form.error = "The two passphrases differ. Type them again."
            state.page = .firstRun(form)
        }
    }

    func testUnlockDerivesKeysOffTheLoopThenListsAndSyncs() {
        let driver = Driver(Fixtures.locked())
        driver.type("secret")
        assertState(driver.state, equals: {
            var s = Fixtures.locked()
            s.page = .locked(UnlockPrompt(passphrase: "secret"))
            return s
        }())
        driver.press(.enter, effects: [.unlock(passphrase: "secret")]) { state in
            state.page = .locked(UnlockPrompt())
            state.busy = Busy(.unlocking, since: FakeClock.start)
        }
        // The KDF runs: the screen still answers keys (help opens and closes), typing is ignored.
        driver.press(.function(1)) { $0.overlay = .help }
        driver.press(.escape) { $0.overlay = nil }
        driver.press(.character("x"))
        // Esc after Enter is a habit: it does not quit while the keys are derived.
        driver.press(.escape) { state in
            state.notice = Notice("Please wait: Unlocking (deriving keys)…", until: driver.clock.now.addingTimeInterval(Notice.lifetime))
        }

        driver.clock.advance(0.5)
        driver.send(.unlocked(items: Fixtures.items, summary: Fixtures.summary), effects: [.startSync(.unlock)]) { state in
            state.busy = nil
            state.items = Fixtures.items
            state.page = .list
            state.list.selectedID = "f6"
            state.lastInput = driver.clock.now
            state.unlockedAt = driver.clock.now
            state.sync.running = .unlock
            var scheduler = SyncScheduler(hasAccount: true)
            _ = scheduler.handle(.unlock, now: driver.clock.now)
            state.scheduler = scheduler
        }
    }

    func testWrongPassphraseSaysSoAndLetsTheUserRetry() {
        let driver = Driver(Fixtures.locked())
        driver.type("wrong")
        driver.press(.enter, effects: [.unlock(passphrase: "wrong")]) { state in
            state.page = .locked(UnlockPrompt())
            state.busy = Busy(.unlocking, since: FakeClock.start)
        }
        driver.send(.unlockFailed(.wrongPassphrase)) { state in
            state.busy = nil
            state.page = .locked(UnlockPrompt(error: "Wrong passphrase. Try again.", failedAttempts: 1))
        }
        driver.press(.character("r")) { state in
            state.page = .locked(UnlockPrompt(passphrase: "r", failedAttempts: 1))
        }
        driver.type("ight")
        driver.press(.enter, effects: [.unlock(passphrase: "right")]) { state in
            state.page = .locked(UnlockPrompt(failedAttempts: 1))
            state.busy = Busy(.unlocking, since: FakeClock.start)
        }
    }

    func testEmptyPassphraseIsNotSubmitted() {
        let driver = Driver(Fixtures.locked())
        driver.press(.enter) { state in
            state.page = .locked(UnlockPrompt(error: "Type the passphrase, then press Enter."))
        }
    }

    func testEscapeClearsThePromptThenQuits() {
        let driver = Driver(Fixtures.locked())
        driver.type("abc")
        driver.press(.escape) { $0.page = .locked(UnlockPrompt()) }
        driver.press(.escape, effects: [.quit]) { $0.exitCode = 0 }
    }

    func testIdleTimeLocksAndDropsEverySecret() {
        var start = Fixtures.unlocked()
        start.page = .detail(DetailState(itemID: "a1", isRevealed: true))
        start.list.filter = TextField("git")
        start.list.sort = .modified
        start.clipboard = ClipboardCountdown(field: .password, until: FakeClock.start.addingTimeInterval(400))
        let driver = Driver(start)

        driver.clock.advance(299)
        driver.send(.tick)
        driver.clock.advance(1)
        driver.send(.tick, effects: [.lockVault, .clearClipboard, .redraw]) { state in
            state.items = []
            state.list = ListState()
            state.list.sort = .modified
            state.page = .locked(UnlockPrompt())
            state.clipboard = nil
            state.notice = Notice("Locked after 5 min without a key press.", until: driver.clock.now.addingTimeInterval(5))
        }
        XCTAssertTrue(driver.state.items.isEmpty)
    }

    func testAKeyPressPostponesTheAutoLock() {
        let driver = Driver(Fixtures.unlocked())
        driver.clock.advance(200)
        driver.press(.character("j")) { $0.list.selectedID = $0.visibleItems[1].id }
        driver.clock.advance(200)
        driver.send(.tick)
        XCTAssertFalse(driver.state.isLocked)
    }

    func testLockKeyLocksNow() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("L"), effects: [.lockVault, .redraw]) { state in
            state.items = []
            state.list = ListState()
            state.page = .locked(UnlockPrompt())
        }
    }

    func testItemsLoadedAfterALockAreDropped() {
        let driver = Driver(Fixtures.unlocked())
        _ = Update.apply(.key(.character("L")), to: &driver.state, now: driver.clock.now)
        let newer = VaultSummary(items: 8)
        driver.send(.reloaded(items: Fixtures.items, summary: newer)) { state in
            state.summary = newer
            state.scheduler.hasAccount = false
        }
        XCTAssertTrue(driver.state.items.isEmpty)
    }

    func testQuitClearsTheClipboardAndLocks() {
        var start = Fixtures.unlocked()
        start.clipboard = ClipboardCountdown(field: .username, until: FakeClock.start.addingTimeInterval(5))
        let driver = Driver(start)
        driver.press(.character("q"), effects: [.clearClipboard, .lockVault, .quit]) { state in
            state.exitCode = 0
            state.clipboard = nil
        }
    }

    func testSignalQuitsWithItsExitCode() {
        let driver = Driver(Fixtures.locked())
        driver.send(.terminationRequested(exitCode: 130), effects: [.quit]) { $0.exitCode = 130 }
    }
}
