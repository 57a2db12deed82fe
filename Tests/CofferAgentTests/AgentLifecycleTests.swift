import CofferCore
import Foundation
import XCTest
@testable import CofferAgent

/// When the agent locks and syncs (`AgentLifecycle`), as a table of named rows on a fake clock:
/// each row starts a lifecycle at `start` and checks the actions of every step.
final class AgentLifecycleTests: XCTestCase {
    typealias Event = AgentLifecycle.Event
    typealias Action = AgentLifecycle.Action

    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let unlockedAt = Timestamp(start)

    /// Something the agent is told `at` seconds after the start, and the actions it must give.
    struct Step {
        enum Input {
            case event(Event)
            /// A request arriving: told as `Event(arrivalOf:)` says, or not at all.
            case request(AgentRequest)
        }

        var at: Double
        var input: Input
        var expected: [Action]
    }

    struct Row {
        var name: String
        var idle: Double = 0
        var syncEvery: Double = 0
        var steps: [Step]
    }

    static func tick(_ at: Double, _ observed: AgentLifecycle.Observation = .init(), _ expected: [Action] = []) -> Step {
        Step(at: at, input: .event(.tick(observed)), expected: expected)
    }

    static func event(_ at: Double, _ event: Event, _ expected: [Action] = []) -> Step {
        Step(at: at, input: .event(event), expected: expected)
    }

    static func request(_ at: Double, _ request: AgentRequest) -> Step {
        Step(at: at, input: .request(request), expected: [])
    }

    static func remoteLock(_ millisecondsAfterUnlock: Int64) -> AgentLifecycle.Observation {
        .init(remoteLock: Timestamp(milliseconds: unlockedAt.milliseconds + millisecondsAfterUnlock))
    }

    static let rows: [Row] = [
        Row(name: "the idle limit runs out without a use, once", idle: 10, steps: [
            tick(9.9), tick(10, .init(), [.shutdown(.idle)]), tick(11), event(12, .lockRequested),
        ]),
        Row(name: "every request but status starts the idle clock again", idle: 10, steps: [
            request(5, .items(.everything)), tick(14), request(14, .lock), tick(23),
            tick(24, .init(), [.shutdown(.idle)]),
        ]),
        Row(name: "status does not count as a use", idle: 10, steps: [
            request(5, .status), request(9, .status), tick(10, .init(), [.shutdown(.idle)]),
        ]),
        Row(name: "renew without a limit is a use", idle: 10, steps: [
            request(8, .renew(idle: nil)), tick(17.9), tick(18, .init(), [.shutdown(.idle)]),
        ]),
        Row(name: "renew with a new limit starts the clock again under it", idle: 10, steps: [
            request(5, .renew(idle: 60)), tick(64.9), tick(65, .init(), [.shutdown(.idle)]),
        ]),
        Row(name: "renew to 0 never runs out", idle: 10, steps: [
            request(5, .renew(idle: 0)), tick(100_000),
        ]),
        Row(name: "a limit of 0 from the start never runs out", steps: [tick(100_000)]),
        Row(name: "renew with a negative limit is a use under the old limit", idle: 10, steps: [
            request(5, .renew(idle: -5)), tick(14.9), tick(15, .init(), [.shutdown(.idle)]),
        ]),
        Row(name: "renew with an infinite limit is a use under the old limit", idle: 10, steps: [
            request(5, .renew(idle: .infinity)), tick(15, .init(), [.shutdown(.idle)]),
        ]),
        Row(name: "a lock request shuts down, and nothing follows", idle: 10, syncEvery: 5, steps: [
            event(1, .lockRequested, [.shutdown(.lockRequested)]), tick(5), tick(100), event(101, .signal(SIGTERM)),
        ]),
        Row(name: "a signal shuts down", steps: [event(1, .signal(SIGHUP), [.shutdown(.signal(SIGHUP))])]),
        Row(name: "a vault locked by a sync shuts down", steps: [
            tick(1), tick(2, .init(isVaultLocked: true), [.shutdown(.vaultLocked)]),
        ]),
        Row(name: "the vault file gone shuts down", steps: [
            tick(1), tick(2, .init(hasVaultFile: false), [.shutdown(.vaultFileGone)]),
        ]),
        Row(name: "a remote lock sent after the unlock shuts down", steps: [
            tick(1, remoteLock(1), [.shutdown(.remoteLock)]),
        ]),
        Row(name: "a remote lock sent before or at the unlock does not", steps: [
            tick(1, remoteLock(-60_000)), tick(2, remoteLock(0)), tick(3, remoteLock(5), [.shutdown(.remoteLock)]),
        ]),
        Row(name: "the periodic sync starts every interval", syncEvery: 60, steps: [
            tick(59.9), tick(60, .init(), [.startSync]), event(62, .syncFinished), tick(119.9),
            tick(120, .init(), [.startSync]),
        ]),
        Row(name: "one sync at a time, the next one once it has ended", syncEvery: 60, steps: [
            tick(60, .init(), [.startSync]), tick(120), tick(150), event(155, .syncFinished),
            tick(156, .init(), [.startSync]), event(157, .syncFinished), tick(215.9), tick(216, .init(), [.startSync]),
        ]),
        Row(name: "a sync is not a use", idle: 90, syncEvery: 60, steps: [
            tick(60, .init(), [.startSync]), event(70, .syncFinished), tick(90, .init(), [.shutdown(.idle)]),
        ]),
        Row(name: "no sync with an interval of 0", steps: [tick(1), tick(100_000)]),
        Row(name: "no sync on a vault about to lock", syncEvery: 60, steps: [
            tick(60, .init(hasVaultFile: false), [.shutdown(.vaultFileGone)]), tick(120),
        ]),
    ]

    func testEveryRow() {
        for row in Self.rows {
            var lifecycle = AgentLifecycle(idleLimit: row.idle, syncInterval: row.syncEvery, unlockedAt: Self.unlockedAt,
                                           now: Self.start)
            for step in row.steps {
                let now = Self.start.addingTimeInterval(step.at)
                let actions: [Action]
                switch step.input {
                case .event(let event):
                    actions = lifecycle.handle(event, now: now)
                case .request(let request):
                    actions = Event(arrivalOf: request).map { lifecycle.handle($0, now: now) } ?? []
                }
                XCTAssertEqual(actions, step.expected, "\(row.name): at \(step.at) s")
            }
        }
    }

    func testWhatEachRequestTellsTheLifecycle() {
        XCTAssertNil(Event(arrivalOf: .status))
        XCTAssertEqual(Event(arrivalOf: .renew(idle: 30)), .renewed(idle: 30))
        XCTAssertEqual(Event(arrivalOf: .renew(idle: 0)), .renewed(idle: 0))
        for request in [AgentRequest.renew(idle: nil), .renew(idle: -1), .renew(idle: .nan), .lock, .item(name: "x"),
                        .now, .sync, .devices, .remove(id: "x")] {
            XCTAssertEqual(Event(arrivalOf: request), .used, "\(request)")
        }
    }

    func testSecondsLeftFollowTheLastUse() {
        var lifecycle = AgentLifecycle(idleLimit: 900, syncInterval: 0, unlockedAt: Self.unlockedAt, now: Self.start)
        XCTAssertEqual(lifecycle.secondsLeft(now: Self.start.addingTimeInterval(100)), 800)
        _ = lifecycle.handle(.used, now: Self.start.addingTimeInterval(100))
        XCTAssertEqual(lifecycle.secondsLeft(now: Self.start.addingTimeInterval(400)), 600)
        XCTAssertEqual(lifecycle.secondsLeft(now: Self.start.addingTimeInterval(5_000)), 0)
        _ = lifecycle.handle(.renewed(idle: 0), now: Self.start.addingTimeInterval(5_000))
        XCTAssertNil(lifecycle.secondsLeft(now: Self.start.addingTimeInterval(5_000)))
        XCTAssertEqual(lifecycle.idleLimit, 0)
    }
}
