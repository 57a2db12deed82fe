import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// Messages between devices in the scenario suite, which `make test` also runs on PostgreSQL.
extension SyncScenarioTests {
    /// Two senders × 50 messages while the recipient syncs at the same time: each is handled once,
    /// and nothing is left on the server or in any outbox or inbox.
    func testTwoSendersFiftyMessagesEachAreHandledOnce() async throws {
        let (a, b) = try await pair()
        let c = try await Device.join("c", in: directory, server: server.url, credentials: credentials)
        for device in [a, b, c] { await device.syncExpectingSuccess() }
        let recipient = try b.vault.deviceID()
        var sent: [MessageRecord] = []
        for sender in [a, c] {
            for index in 0..<50 {
                sent += try await sender.engine.send(.credentials, data: "\(sender.name)-\(index)", to: [recipient])
            }
        }
        async let fromA = a.sync()
        async let fromC = c.sync()
        async let meanwhile = b.sync()
        let reports = await [fromA, fromC, meanwhile]
        // On PostgreSQL concurrent writers get 409 (with Retry-After): the message stays in the
        // outbox, and a later sync sends it.
        for report in reports where report.error != nil {
            XCTAssertEqual(report.error, .network, report.message ?? "")
            XCTAssertTrue(report.message?.contains("409") == true, report.message ?? "")
        }
        for _ in 0..<3 {
            for device in [a, c, b] {
                device.clock.advance(60)
                await device.syncExpectingSuccess()
            }
        }

        let handled = try b.vault.database.syncRead { store in try sent.filter { try store.isHandled($0.id) }.count }
        XCTAssertEqual(handled, 100)
        for device in [a, b, c] {
            let (outbox, inbox) = try device.vault.database.syncRead { (try $0.outbox(), try $0.inbox()) }
            XCTAssertEqual(outbox.count + inbox.count, 0, device.name)
        }
        let left = try await RawAccount(server: server, credentials: credentials).records("messages")
        XCTAssertEqual(left.count, 0)
        let sentPasswords = Set([a, c].flatMap { sender in (0..<50).map { "\(sender.name)-\($0)" } })
        let next = try XCTUnwrap(try b.vault.database.meta(.accountNextPassword))
        XCTAssertTrue(sentPasswords.contains(next), "the effect is one of the messages': \(next)")
    }
}
