import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// The idle loop: it draws only what changed (or once a second, for the clock and countdowns) and
/// sleeps until the next thing due, unless a spinner turns.
extension RuntimeTests {
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var current = FakeClock.start
        var now: Date { lock.withLock { current } }
        func advance(_ seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(seconds) } }
    }

    @MainActor
    func testAnIdleScreenDrawsOnceASecondAndSleepsUntilThen() throws {
        let clock = Clock()
        let services = ScreenServices(runSync: { _, _ in SyncReport() }, now: { clock.now })
        let state = Fixtures.unlocked()
        let screen = MemoryScreen()
        let runtime = Runtime(state: state, vault: nil, screen: screen, services: services, options: ScreenOptions())
        runtime.turn(waitingAtMost: 0)
        XCTAssertEqual(screen.frameCount, 1)
        for _ in 0..<5 { runtime.turn(waitingAtMost: 0) }
        XCTAssertEqual(screen.frameCount, 1, "nothing changed within the second: no new frame")

        screen.pendingInput = [.key(.character("j"))]
        runtime.turn(waitingAtMost: 0)
        runtime.turn(waitingAtMost: 0)
        XCTAssertEqual(screen.frameCount, 2, "a key's change is drawn on the next turn")

        clock.advance(1)
        runtime.turn(waitingAtMost: 0)
        XCTAssertEqual(screen.frameCount, 3, "a new second: the clock and countdowns move")

        clock.advance(0.25)
        XCTAssertEqual(runtime.waitMilliseconds(now: clock.now), 750, "asleep until the next second")
        var syncing = runtime.state
        syncing.sync.running = .manual
        let spinning = Runtime(state: syncing, vault: nil, screen: screen, services: services, options: ScreenOptions())
        XCTAssertEqual(spinning.waitMilliseconds(now: clock.now), Runtime.animationMilliseconds, "the spinner turns")
    }

    /// Background work wakes the loop at once instead of waiting out the sleep.
    func testAPostWakesTheLoop() {
        let inbox = Inbox()
        var descriptor = pollfd(fd: inbox.wakePipe.readDescriptor, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&descriptor, 1, 0), 0, "nothing posted: the wait would sleep")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { inbox.post(.vaultChangedElsewhere) }
        XCTAssertEqual(poll(&descriptor, 1, 5000), 1, "the post ended the wait")
        XCTAssertEqual(inbox.drain().count, 1)
        descriptor.revents = 0
        XCTAssertEqual(poll(&descriptor, 1, 0), 0, "draining empties the pipe")
    }
}
