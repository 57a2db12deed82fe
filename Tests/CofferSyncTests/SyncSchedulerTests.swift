import Foundation
import XCTest
@testable import CofferSync

/// The scheduler's triggers, one-more-after and backoff, with a fake clock.
final class SyncSchedulerTests: XCTestCase {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    func testNoAccountNeverSyncs() {
        var scheduler = SyncScheduler(hasAccount: false)
        for trigger in [SyncScheduler.Trigger.start, .localChange, .periodic, .unlock, .manual] {
            XCTAssertEqual(scheduler.handle(trigger, now: start), [])
        }
        XCTAssertEqual(scheduler.tick(now: at(100)), [])
        XCTAssertNil(scheduler.nextWake)
    }

    func testALocalChangeSyncsAfterTheDebounceAndPeriodicSyncFollows() {
        var scheduler = SyncScheduler(hasAccount: true, debounce: 3, interval: 30)
        XCTAssertEqual(scheduler.handle(.localChange, now: start), [])
        XCTAssertEqual(scheduler.tick(now: at(2.9)), [])
        XCTAssertEqual(scheduler.handle(.localChange, now: at(2)), [], "another change moves the deadline")
        XCTAssertEqual(scheduler.tick(now: at(4.9)), [])
        XCTAssertEqual(scheduler.tick(now: at(5)), [.startSync(.localChange)])
        XCTAssertEqual(scheduler.syncFinished(now: at(6), backoffUntil: nil), [])
        XCTAssertEqual(scheduler.nextWake, at(36))
        XCTAssertEqual(scheduler.tick(now: at(35)), [])
        XCTAssertEqual(scheduler.tick(now: at(36)), [.startSync(.periodic)])
    }

    func testOneSyncAtATimeWithOneMoreAfterKeepingTheStrongestReason() {
        var scheduler = SyncScheduler(hasAccount: true)
        XCTAssertEqual(scheduler.handle(.start, now: start), [.startSync(.start)])
        XCTAssertEqual(scheduler.handle(.periodic, now: at(1)), [])
        XCTAssertEqual(scheduler.handle(.unlock, now: at(2)), [])
        XCTAssertEqual(scheduler.handle(.periodic, now: at(3)), [])
        XCTAssertTrue(scheduler.isRerunRequested)
        XCTAssertEqual(scheduler.syncFinished(now: at(4), backoffUntil: nil), [.startSync(.unlock)])
        XCTAssertEqual(scheduler.syncFinished(now: at(5), backoffUntil: nil), [], "one more, not one per trigger")
    }

    func testBackoffHoldsAutomaticSyncsAndRefusesManualOnesUntilTheDeadline() {
        var scheduler = SyncScheduler(hasAccount: true, interval: 30)
        XCTAssertEqual(scheduler.handle(.start, now: start), [.startSync(.start)])
        XCTAssertEqual(scheduler.syncFinished(now: at(1), backoffUntil: at(120)), [])
        XCTAssertEqual(scheduler.handle(.manual, now: at(2)), [.deferredByBackoff(until: at(120))])
        XCTAssertEqual(scheduler.tick(now: at(31)), [], "the periodic sync waits for the deadline")
        XCTAssertEqual(scheduler.nextPeriodic, at(120))
        XCTAssertEqual(scheduler.tick(now: at(120)), [.startSync(.periodic)])
        XCTAssertEqual(scheduler.syncFinished(now: at(121), backoffUntil: nil), [])
        XCTAssertEqual(scheduler.handle(.manual, now: at(122)), [.startSync(.manual)])
    }
}
