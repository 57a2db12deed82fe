import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

// The fault matrix's device and message steps: a rename published, the registry listed, a lock
// message sent, listed and deleted, each with one fault on B's request.
extension SyncFaultTests {
    /// What B must report when `kind` hits a device or message request.
    static func expectedDeviceError(_ kind: FaultProxy.Mode, at step: FaultStep) -> SyncErrorName? {
        switch kind {
        case .status401: return .syncAuth
        // Success with a Backoff header, and a body without sub-responses: nothing to report.
        case .backoffHeader, .batch409: return nil
        // A deletion answered 404 is done: the message is gone (or, if that 404 lied, listed
        // again and deleted again: `MessageDeleteStep`).
        case .status404 where step == .messagesDelete: return nil
        // Creating a message and deleting one read only the status: a garbled body after a 201
        // or a 200 changes nothing (the server did what was asked).
        case .garbledJSON where step == .outboxPush || step == .messagesDelete: return nil
        default: return .network
        }
    }

    /// Regression (fault matrix, status_404 at the messages delete): a 404 that did not come from
    /// Kinto left the handled message on the server, and every later listing was a 304 on the old
    /// ETag, so it was never listed, nor deleted, again.
    func testAMessageWhoseDeletionWasAnsweredByAFalseNotFoundIsDeletedLater() async throws {
        credentials = try await server.makeAccount()
        try await runDeviceScenario(.status404, at: .messagesDelete, seed: 2)
    }

    /// A talks to Kinto, B through the proxy; one clock for both, because a lock message counts
    /// only when it is newer than the recipient's unlock. Odd seeds also carry an item of B's, so
    /// the device steps run after a push that moved data.
    func runDeviceScenario(_ kind: FaultProxy.Mode, at step: FaultStep, seed: Int) async throws {
        let scenario = "\(kind.rawValue) at the \(step.rawValue), seed \(seed)"
        let cell: URL = directory
        let clock = TestClock()
        let a = try await Device.create("a", in: cell, server: server.url, credentials: credentials, clock: clock)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: cell, server: server.url, credentials: credentials, clock: clock)
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        b.use(server: proxy.url, credentials: credentials, timeout: FaultMatrix.clientTimeout(for: kind))
        let aID = try a.vault.deviceID(), bID = try b.vault.deviceID()
        let item = seed % 2 == 1 ? try await b.add("From B (\(scenario))", password: "pb\(seed)") : nil

        var message: MessageRecord?
        switch step {
        case .deviceRegister:
            try b.vault.renameDevice(to: "b renamed \(seed)")
        case .devicesFetch:
            try a.vault.renameDevice(to: "a renamed \(seed)")
            await a.syncExpectingSuccess()
        case .outboxPush:
            clock.advance(60)
            message = try await b.engine.send(.lock, to: [aID]).first
        case .messagesFetch, .messagesDelete:
            clock.advance(60)
            message = try await a.engine.send(.lock, to: [bID]).first
            await a.syncExpectingSuccess()
        default:
            return XCTFail("\(scenario): not a device or message step")
        }

        let seconds = FaultMatrix.seconds(for: kind)
        let logBefore = try await proxy.log().count
        try await proxy.setFault(kind, count: 1, match: step.match(deviceID: bID), seconds: seconds)
        let reported: SyncErrorName?
        if step == .devicesFetch {
            do {
                _ = try await b.engine.devices()
                reported = nil
            } catch let error as KintoError {
                reported = SyncEngine.name(of: error)
            }
        } else {
            let report = await b.sync()
            reported = report.error
            if reported != nil { XCTAssertNotNil(report.message, "\(scenario): an error comes with a sentence") }
        }
        XCTAssertEqual(reported, Self.expectedDeviceError(kind, at: step), scenario)
        if kind == .delay {
            // The proxy forwards the held request after `seconds`: let it land before going on.
            try await Task.sleep(nanoseconds: UInt64((seconds + 0.5) * 1_000_000_000))
        }
        let faulted = try await proxy.log().dropFirst(logBefore).filter { $0.fault == kind.rawValue }
        XCTAssertEqual(faulted.map { "\($0.method) \($0.path)" }.count, 1, "\(scenario): the fault hit one request")
        try await proxy.setFault(.pass)
        b.use(server: proxy.url, credentials: credentials)
        if FaultMatrix.leavesDeadline(kind, at: step) { clock.advance(seconds + 1) }

        // Recovery: two more rounds; a locked recipient unlocks after its lock (a person would).
        for _ in 0..<2 {
            let fromB = await b.sync(), fromA = await a.sync()
            XCTAssertNil(fromB.error, "\(scenario): B after recovery: \(fromB.message ?? "")")
            XCTAssertNil(fromA.error, "\(scenario): A after recovery: \(fromA.message ?? "")")
        }
        let raw = RawAccount(server: server, credentials: credentials)
        switch step {
        case .deviceRegister:
            let known = try await a.engine.devices()
            XCTAssertEqual(known.first { $0.id == bID }?.name, "b renamed \(seed)", "\(scenario): B's rename reached A")
        case .devicesFetch:
            let known = try await b.engine.devices()
            XCTAssertEqual(known.first { $0.id == aID }?.name, "a renamed \(seed)", "\(scenario): B lists A's new name")
        case .outboxPush:
            try await assertLockHandledOnce(message, by: a, sender: b, scenario: scenario)
        default:
            try await assertLockHandledOnce(message, by: b, sender: a, scenario: scenario)
        }
        let devices = try await raw.records("devices").compactMap { $0["id"] as? String }
        XCTAssertEqual(Set(devices), [aID, bID], "\(scenario): one record per device")
        XCTAssertEqual(devices.count, 2, "\(scenario): one record per device")
        if let item {
            let onA = try await a.items()
            XCTAssertEqual(onA[item.id]?.entry.password, "pb\(seed)", "\(scenario): B's item reached A")
        }
        XCTAssertEqual(try b.status().allPendingChanges, 0, scenario)
    }

    /// The lock was applied once (the recipient locked, and after its unlock the next sync does not
    /// lock it again), nothing waits in either outbox or inbox, and the server holds no message.
    private func assertLockHandledOnce(_ message: MessageRecord?, by recipient: Device, sender: Device,
                                       scenario: String) async throws {
        let message = try XCTUnwrap(message, scenario)
        let locked = await recipient.vault.isLocked
        XCTAssertTrue(locked, "\(scenario): the lock reached \(recipient.name)")
        XCTAssertTrue(try recipient.vault.database.syncRead { try $0.isHandled(message.id) }, "\(scenario): handled")
        try await recipient.unlock()
        let again = await recipient.sync()
        XCTAssertNil(again.error, "\(scenario): \(again.message ?? "")")
        let lockedAgain = await recipient.vault.isLocked
        XCTAssertFalse(lockedAgain, "\(scenario): the lock was applied twice")
        XCTAssertEqual(try sender.vault.database.syncRead { try $0.outbox() }, [], "\(scenario): the sender's outbox")
        XCTAssertEqual(try recipient.vault.database.syncRead { try $0.inbox() }.count, 0, "\(scenario): the recipient's inbox")
        let left = try await RawAccount(server: server, credentials: credentials).records("messages")
        XCTAssertEqual(left.count, 0, "\(scenario): messages left on the server")
    }
}
