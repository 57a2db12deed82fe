import CofferCore
@testable import CofferSync
import XCTest

/// The delivery rules as tables, without a database or a server.
final class MessageRulesTests: XCTestCase {
    let now: Int64 = 1_000_000
    func content(_ topic: MessageTopic, created: Int64) -> MessageContent {
        MessageContent(topic: topic, created: Timestamp(milliseconds: created))
    }

    func facts(done: Bool = false, handled: Bool = false, expires: Int64? = nil, opened: MessageFacts.Opened,
               unlockedAt: Int64? = 0) -> MessageFacts {
        MessageFacts(isDone: done, isHandled: handled, expires: expires ?? now + 1, opened: opened, now: now, unlockedAt: unlockedAt)
    }

    func testEachDecision() {
        let lock = content(.lock, created: now - 10)
        let signout = content(.signout, created: now - 10)
        let rows: [(String, MessageFacts, MessageDecision)] = [
            ("done earlier", facts(done: true, handled: true, opened: .content(lock)), .alreadyDone),
            ("replay", facts(handled: true, expires: lock.expires, opened: .content(lock)), .refuse(.replayed)),
            ("replay while locked", facts(handled: true, opened: .locked, unlockedAt: nil), .refuse(.replayed)),
            ("replay of an expired one", facts(handled: true, expires: now - 1, opened: .notTried), .refuse(.replayed)),
            ("expired", facts(expires: now, opened: .content(lock)), .refuse(.expired)),
            ("expired while locked", facts(expires: now - 1, opened: .locked, unlockedAt: nil), .refuse(.expired)),
            ("locked", facts(expires: signout.expires, opened: .locked, unlockedAt: nil), .wait),
            ("flipped bit", facts(opened: .unreadable), .refuse(.unreadable)),
            ("expiry edited in the clear", facts(expires: lock.expires + 1, opened: .content(lock)), .refuse(.alteredExpiry)),
            ("lock", facts(expires: lock.expires, opened: .content(lock), unlockedAt: now - 20), .apply(lock)),
            ("lock sent before the unlock", facts(expires: lock.expires, opened: .content(lock), unlockedAt: now - 5),
             .ignoreLockBeforeUnlock(lock)),
            ("signout sent before the unlock", facts(expires: signout.expires, opened: .content(signout), unlockedAt: now - 5),
             .apply(signout)),
        ]
        for (name, facts, expected) in rows {
            XCTAssertEqual(MessageRules.decide(facts), expected, name)
        }
    }

    func testOpeningOnlyWhenItCanMatter() {
        XCTAssertTrue(MessageFacts.needsOpening(isDone: false, isHandled: false, expires: now + 1, now: now))
        XCTAssertFalse(MessageFacts.needsOpening(isDone: true, isHandled: false, expires: now + 1, now: now))
        XCTAssertFalse(MessageFacts.needsOpening(isDone: false, isHandled: true, expires: now + 1, now: now))
        XCTAssertFalse(MessageFacts.needsOpening(isDone: false, isHandled: false, expires: now, now: now))
    }

    func testPlanRemembersOnlyWhatWasHandled() {
        var plan = MessagePlan()
        let lock = content(.lock, created: 5)
        plan.add(.refuse(.unreadable), id: "flipped", expires: 9, senderName: "a")
        plan.add(.wait, id: "waiting", expires: 9, senderName: "a")
        plan.add(.alreadyDone, id: "done", expires: 9, senderName: "a")
        plan.add(.ignoreLockBeforeUnlock(content(.lock, created: 3)), id: "old-lock", expires: 9, senderName: "b")
        plan.add(.apply(lock), id: "lock", expires: lock.expires, senderName: "laptop")
        plan.add(.apply(MessageContent(topic: .credentials, data: "pw", created: Timestamp(milliseconds: 5))), id: "pw",
                 expires: 7, senderName: "a")
        XCTAssertEqual(plan.handled.map(\.id), ["old-lock", "lock", "pw"])
        XCTAssertEqual(plan.done, ["flipped", "old-lock", "lock", "pw"])
        XCTAssertEqual(plan.lock, DeviceLockNotice(from: "laptop", at: Timestamp(milliseconds: 5)))
        XCTAssertEqual(plan.lockRequest, plan.lock, "the newest lock is the one other screens see")
        XCTAssertEqual(plan.nextPassword, "pw")
        XCTAssertFalse(plan.signOut)
        XCTAssertTrue(plan.locks)
    }

    func testRegistrationIsDueAtFirstAfterARenameAndDaily() {
        let day = DeviceRegisterStep.refreshInterval
        XCTAssertTrue(DeviceRegisterStep.isDue(lastRegistered: nil, now: now))
        XCTAssertFalse(DeviceRegisterStep.isDue(lastRegistered: now - day + 1, now: now))
        XCTAssertTrue(DeviceRegisterStep.isDue(lastRegistered: now - day, now: now))
        XCTAssertTrue(DeviceRegisterStep.isDue(lastRegistered: now + 1, now: now), "a clock set back")
    }

    func testRotationWaitsForEveryMessageUnlessTheyExpired() {
        let pending = RotationStep.Pending(password: "p", messages: ["m1", "m2"], started: now)
        XCTAssertFalse(RotationStep.isReady(pending, waiting: 1, now: now + 1))
        XCTAssertTrue(RotationStep.isReady(pending, waiting: 0, now: now + 1))
        XCTAssertTrue(RotationStep.isReady(pending, waiting: 2, now: now + MessageTopic.credentials.lifetime + 1))
    }
}
