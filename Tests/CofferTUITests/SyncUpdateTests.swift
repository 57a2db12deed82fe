import CofferCore
import CofferSync
import XCTest
@testable import CofferTUI

/// Sync through the scheduler: on start, after edits, every 30 s, on unlock, on `s`; the engine's
/// progress and reports in the status bar.
final class SyncUpdateTests: XCTestCase {
    func testStartSyncsWhenAnAccountIsSet() {
        let driver = Driver(Fixtures.locked())
        driver.send(.started, effects: [.startSync(.start)]) { state in
            state.sync.running = .start
            _ = state.scheduler.handle(.start, now: FakeClock.start)
        }
    }

    func testNoAccountMeansNoSyncAndSaysWhy() {
        var summary = Fixtures.summary
        summary.account = nil
        let driver = Driver(Fixtures.unlocked(summary: summary))
        driver.send(.started)
        driver.press(.character("s")) { state in
            state.notice = Notice("No sync account: run `coffer account login` first.",
                                  until: FakeClock.start.addingTimeInterval(5))
        }
    }

    func testManualSyncShowsProgressThenTheReport() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("s"), effects: [.startSync(.manual)]) { state in
            state.sync.running = .manual
            _ = state.scheduler.handle(.manual, now: FakeClock.start)
        }
        let progress = SyncProgress(step: .push, collection: "items", done: 3, total: 10)
        driver.send(.syncProgress(progress)) { $0.sync.progress = progress }
        driver.clock.advance(2)
        var report = SyncReport()
        report.uploaded = 10
        driver.send(.syncFinished(report), effects: [.reload]) { state in
            state.sync = SyncDisplay(lastSync: driver.clock.now)
            _ = state.scheduler.syncFinished(now: driver.clock.now, backoffUntil: nil)
        }
    }

    func testEachErrorNameIsKeptForTheStatusBar() {
        for name in [SyncErrorName.offline, .network, .syncLocked, .syncAuth] {
            let driver = Driver(Fixtures.unlocked())
            _ = Update.apply(.key(.character("s")), to: &driver.state, now: driver.clock.now)
            let report = SyncReport(error: name, message: "Something about \(name.rawValue).")
            driver.send(.syncFinished(report), effects: [.reload]) { state in
                state.sync.running = nil
                state.sync.lastError = name
                state.sync.lastMessage = "Something about \(name.rawValue)."
                if name == .syncLocked {
                    state.sync.lastSync = FakeClock.start
                } else {
                    // Asked for by the user: the failure is told at once.
                    state.notice = Notice("\(name.rawValue): Something about \(name.rawValue).", isError: true,
                                          until: FakeClock.start.addingTimeInterval(5))
                }
                _ = state.scheduler.syncFinished(now: FakeClock.start, backoffUntil: nil)
            }
        }
    }

    func testAnAutomaticSyncTellsAFailureOnlyWhenItChanges() {
        let driver = Driver(Fixtures.locked())
        _ = Update.apply(.started, to: &driver.state, now: driver.clock.now)
        let offline = SyncReport(error: .offline, message: "No connection to the server.")
        driver.send(.syncFinished(offline), effects: [.reload]) { state in
            state.sync = SyncDisplay(lastError: .offline, lastMessage: "No connection to the server.",
                                     lastSync: Fixtures.summary.lastSync)
            state.notice = Notice("OFFLINE: No connection to the server.", isError: true,
                                  until: FakeClock.start.addingTimeInterval(5))
            _ = state.scheduler.syncFinished(now: FakeClock.start, backoffUntil: nil)
        }
        driver.clock.advance(30)
        _ = Update.apply(.tick, to: &driver.state, now: driver.clock.now)
        XCTAssertEqual(driver.state.sync.running, .periodic)
        driver.send(.syncFinished(offline), effects: [.reload]) { state in
            state.sync.running = nil
            _ = state.scheduler.syncFinished(now: driver.clock.now, backoffUntil: nil)
        }
    }

    func testBackoffDefersTheManualSync() {
        let driver = Driver(Fixtures.unlocked())
        _ = Update.apply(.key(.character("s")), to: &driver.state, now: driver.clock.now)
        var report = SyncReport(error: .network, message: "The server is busy.")
        let until = FakeClock.start.addingTimeInterval(120)
        report.backoffUntil = until
        _ = Update.apply(.syncFinished(report), to: &driver.state, now: driver.clock.now)
        driver.clock.advance(10)
        driver.press(.character("s")) { state in
            state.notice = Notice("The server asked to wait: syncing again at 09:02:00.",
                                  until: driver.clock.now.addingTimeInterval(5))
        }
    }

    func testAnEditSyncsAFewSecondsLaterThenEveryThirtySeconds() {
        let driver = Driver(Fixtures.unlocked())
        var saved = Fixtures.mail
        saved.title = "Mail (work)"
        _ = Update.apply(.itemSaved(saved), to: &driver.state, now: driver.clock.now)
        driver.clock.advance(2)
        driver.send(.tick)
        driver.clock.advance(1)
        driver.send(.tick, effects: [.startSync(.localChange)]) { state in
            state.sync.running = .localChange
            _ = state.scheduler.tick(now: driver.clock.now)
        }
        _ = Update.apply(.syncFinished(SyncReport()), to: &driver.state, now: driver.clock.now)
        driver.clock.advance(29)
        driver.send(.tick) { $0.notice = nil }
        driver.clock.advance(1)
        driver.send(.tick, effects: [.startSync(.periodic)]) { state in
            state.sync.running = .periodic
            _ = state.scheduler.tick(now: driver.clock.now)
        }
    }

    func testSyncKeepsRunningWhileLocked() {
        let driver = Driver(Fixtures.locked())
        _ = Update.apply(.started, to: &driver.state, now: driver.clock.now)
        var report = SyncReport(error: .syncLocked, message: "1 conflict waits for an unlock.")
        report.conflictsWaiting = 1
        _ = Update.apply(.syncFinished(report), to: &driver.state, now: driver.clock.now)
        driver.clock.advance(30)
        driver.send(.tick, effects: [.startSync(.periodic)]) { state in
            state.sync.running = .periodic
            _ = state.scheduler.tick(now: driver.clock.now)
        }
        XCTAssertTrue(driver.state.isLocked)
    }

    func testATriggerDuringASyncRunsOneMoreAfterIt() {
        let driver = Driver(Fixtures.unlocked())
        _ = Update.apply(.key(.character("s")), to: &driver.state, now: driver.clock.now)
        driver.press(.character("s")) { state in
            _ = state.scheduler.handle(.manual, now: FakeClock.start)
            state.notice = Notice("A sync is running; another one follows it.", until: FakeClock.start.addingTimeInterval(5))
        }
        driver.send(.syncFinished(SyncReport()), effects: [.reload, .startSync(.manual)]) { state in
            state.sync.lastSync = FakeClock.start
            state.sync.running = .manual
            _ = state.scheduler.syncFinished(now: FakeClock.start, backoffUntil: nil)
        }
    }

    func testProgressAfterTheSyncEndedIsIgnored() {
        let driver = Driver(Fixtures.unlocked())
        driver.send(.syncProgress(SyncProgress(step: .fetch, collection: "items", done: 1, total: 2)))
    }
}
