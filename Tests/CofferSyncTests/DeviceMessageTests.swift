import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// Devices and messages (architecture §9, issue 12) with three vault files on one account of the real Kinto.
final class DeviceMessageTests: XCTestCase {
    var server: TestServer!
    var credentials: KintoCredentials!
    var directory: URL!
    /// One clock for every device: a message's creation and an unlock compare across devices.
    let clock = TestClock()

    override func setUp() async throws {
        server = try TestServer.require()
        credentials = try await server.makeAccount()
        directory = try temporaryDirectory(self)
    }

    var raw: RawAccount { RawAccount(server: server, credentials: credentials) }

    /// Three unlocked devices, each registered.
    func trio(names: [String] = ["a", "b", "c"]) async throws -> [Device] {
        let a = try await Device.create(names[0], in: directory, server: server.url, credentials: credentials, clock: clock)
        await a.syncExpectingSuccess()
        var devices = [a]
        for name in names.dropFirst() {
            devices.append(try await Device.join(name, in: directory, server: server.url, credentials: credentials, clock: clock))
        }
        for device in devices { await device.syncExpectingSuccess() }
        return devices
    }

    func id(_ device: Device) throws -> String { try device.vault.deviceID() }

    func messagesOnServer() async throws -> Int { try await raw.records("messages").count }

    /// Sends from `sender` one minute on and syncs it, so the message is newer than every unlock.
    func send(_ topic: MessageTopic, data: String = "", from sender: Device, to recipient: Device) async throws {
        clock.advance(60)
        try await sender.engine.send(topic, data: data, to: [try id(recipient)])
        await sender.syncExpectingSuccess()
    }

    func testThreeDevicesRegisterAndSeeEachOtherVerified() async throws {
        let devices = try await trio()
        for device in devices {
            let known = try await device.engine.devices()
            XCTAssertEqual(known.compactMap(\.name).sorted(), ["a", "b", "c"], device.name)
            XCTAssertEqual(known.filter(\.isCurrent).map(\.name), [device.name])
            XCTAssertTrue(known.allSatisfy { $0.lastSeen.milliseconds > 0 && $0.capabilities.contains("lock") })
        }
        let before = try await raw.records("devices").map { $0["last_modified"] as? Int }
        for device in devices { await device.syncExpectingSuccess() }
        let after = try await raw.records("devices").map { $0["last_modified"] as? Int }
        XCTAssertEqual(before, after, "a record is refreshed at most daily")
        clock.advance(86_400)
        await devices[0].syncExpectingSuccess()
        let refreshed = try await raw.records("devices").map { $0["last_modified"] as? Int }
        XCTAssertNotEqual(before, refreshed, "a day later the record is refreshed")
    }

    func testForgedDeviceRecordIsUnverifiedAndNeverMessaged() async throws {
        let devices = try await trio()
        let b = try await raw.records("devices").first { $0["id"] as? String == (try id(devices[1])) }
        var swapped = try XCTUnwrap(b)
        swapped["id"] = "forged-swapped-key"
        var random = swapped
        random["id"] = "forged-random"
        random["box"] = Data(repeating: 7, count: 60).base64EncodedString()
        // b's box under another id, or another key in the clear: neither opens as that device.
        swapped["publicKey"] = Data(repeating: 9, count: 32).base64EncodedString()
        try await raw.put("devices", swapped)
        try await raw.put("devices", random)
        let known = try await devices[0].engine.devices()
        XCTAssertEqual(known.count, 5)
        XCTAssertEqual(Set(known.filter { !$0.isVerified }.map(\.id)), ["forged-swapped-key", "forged-random"])
        for forged in ["forged-swapped-key", "forged-random"] {
            do {
                try await devices[0].engine.send(.lock, to: [forged])
                XCTFail("an unverified device was sent a message")
            } catch CoreError.deviceMessage {}
        }
        let outbox = try devices[0].vault.database.syncRead { try $0.outbox() }
        XCTAssertEqual(outbox, [])
    }

    func testLockReachesAnUnlockedDeviceOnceAndLeavesTheServerEmpty() async throws {
        let devices = try await trio()
        let (a, b, c) = (devices[0], devices[1], devices[2])
        try await send(.lock, from: a, to: b)
        let onServer = try await messagesOnServer()
        XCTAssertEqual(onServer, 1)
        await c.syncExpectingSuccess()
        let cLocked = await c.vault.isLocked
        XCTAssertFalse(cLocked, "a message for b does nothing on c")
        await b.syncExpectingSuccess()
        let bLocked = await b.vault.isLocked
        XCTAssertTrue(bLocked)
        let notice = try XCTUnwrap(try b.vault.database.meta(.remoteLock))
        XCTAssertTrue(notice.contains("\"from\":\"a\""), notice)
        let remaining = try await messagesOnServer()
        XCTAssertEqual(remaining, 0)
        try await b.unlock()
        await b.syncExpectingSuccess()
        let lockedAgain = await b.vault.isLocked
        XCTAssertFalse(lockedAgain, "handled once")
    }

    func testLockSentBeforeTheLastUnlockIsIgnoredButDeleted() async throws {
        let devices = try await trio()
        try await send(.lock, from: devices[0], to: devices[1])
        clock.advance(1)
        await devices[1].lock()
        try await devices[1].unlock()
        await devices[1].syncExpectingSuccess()
        let locked = await devices[1].vault.isLocked
        XCTAssertFalse(locked)
        let onServer = try await messagesOnServer()
        XCTAssertEqual(onServer, 0)
    }

    func testReplayedMessageIsOnlyDeleted() async throws {
        let devices = try await trio()
        let (a, b) = (devices[0], devices[1])
        try await send(.credentials, data: "first", from: a, to: b)
        let listed = try await raw.records("messages")
        let sent = try XCTUnwrap(listed.first)
        await b.syncExpectingSuccess()
        XCTAssertEqual(try b.vault.database.meta(.accountNextPassword), "first")
        try b.vault.database.setMeta(.accountNextPassword, nil)
        try await raw.put("messages", sent)
        await b.syncExpectingSuccess()
        XCTAssertNil(try b.vault.database.meta(.accountNextPassword), "the replay had no effect")
        let onServer = try await messagesOnServer()
        XCTAssertEqual(onServer, 0, "the replay was deleted")
    }

    func testFlippedBitIsRejected() async throws {
        let devices = try await trio()
        let (a, b) = (devices[0], devices[1])
        try await send(.credentials, data: "secret", from: a, to: b)
        let listed = try await raw.records("messages")
        var sent = try XCTUnwrap(listed.first)
        var bytes = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(sent["ciphertext"] as? String)))
        bytes[bytes.count / 2] ^= 0x01
        sent["ciphertext"] = bytes.base64EncodedString()
        try await raw.put("messages", sent)
        await b.syncExpectingSuccess()
        XCTAssertNil(try b.vault.database.meta(.accountNextPassword))
        let onServer = try await messagesOnServer()
        XCTAssertEqual(onServer, 0, "the altered message was deleted")
        let handled = try b.vault.database.syncRead { try $0.isHandled(try XCTUnwrap(sent["id"] as? String)) }
        XCTAssertFalse(handled)
    }

    func testExpiredMessageIsDeletedNotApplied() async throws {
        let devices = try await trio()
        try await send(.lock, from: devices[0], to: devices[1])
        clock.advance(16 * 60)
        await devices[1].syncExpectingSuccess()
        let locked = await devices[1].vault.isLocked
        XCTAssertFalse(locked, "a lock 16 minutes old is not applied")
        let onServer = try await messagesOnServer()
        XCTAssertEqual(onServer, 0)
    }

    func testLockedRecipientKeepsSignoutUntilItUnlocks() async throws {
        let devices = try await trio()
        let (a, b) = (devices[0], devices[1])
        await b.lock()
        try await send(.signout, from: a, to: b)
        await b.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        XCTAssertNotNil(try SyncAccount.load(from: b.vault.database), "locked: the message waits")
        let onServer = try await messagesOnServer()
        XCTAssertEqual(onServer, 1)
        clock.advance(1)
        try await b.unlock()
        _ = await b.sync()
        XCTAssertNil(try SyncAccount.load(from: b.vault.database), "signed out")
        let registered = try await raw.records("devices").compactMap { $0["id"] as? String }
        XCTAssertFalse(registered.contains(try id(b)), "a signed-out device leaves the registry")
        let locked = await b.vault.isLocked
        XCTAssertTrue(locked)
        let remaining = try await messagesOnServer()
        XCTAssertEqual(remaining, 0)
    }

    func testRemoveWithRotateCutsOffOnlyTheRemovedDevice() async throws {
        let devices = try await trio()
        let (a, b, c) = (devices[0], devices[1], devices[2])
        try await a.engine.removeDevice(try id(c), rotate: true)
        await a.syncExpectingSuccess()
        XCTAssertNotNil(try a.vault.database.meta(.pendingRotation), "waits until b has the new password")
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        XCTAssertNil(try a.vault.database.meta(.pendingRotation), "rotated")
        XCTAssertNotEqual(try a.vault.database.meta(.accountPassword), credentials.password)
        let item = try await a.add("After rotation")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let onB = try await b.items()
        XCTAssertNotNil(onB[item.id], "b keeps syncing with the new password")
        let removed = await c.sync()
        XCTAssertEqual(removed.error, .syncAuth)
        let known = try await a.engine.devices()
        XCTAssertEqual(known.compactMap(\.name).sorted(), ["a", "b"])
    }

    func testNoDeviceNameOrMessagePlaintextReachesTheServer() async throws {
        func canary(_ kind: String) -> String { "cnry\(kind)\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16))" }
        let names = [canary("a"), canary("b"), canary("c")]
        let devices = try await trio(names: names)
        let payload = canary("payload")
        try await devices[0].engine.send(.credentials, data: payload, to: [try id(devices[1])])
        await devices[0].syncExpectingSuccess()
        let messages = try await raw.text("messages")
        let held = try await raw.text("devices") + messages
        XCTAssertTrue(held.contains("ciphertext") && held.contains("publicKey"), "the listings were read")
        var hits: [String] = []
        for value in names + [payload] {
            for form in ServerCanaryTests.encodings(of: value) where Data(held.utf8).range(of: form) != nil { hits.append(value) }
        }
        XCTAssertEqual(hits, [])
        XCTAssertFalse(messages.contains("credentials"), "the topic is sealed too (capabilities name topics in the clear)")
    }
}

extension DeviceMessageTests {
    /// The send's answer is lost after the server stored it: the outbox keeps the message, and the
    /// retry's `If-None-Match: *` finds it there instead of making a second copy.
    func testASendWhoseAnswerWasLostLeavesNoDuplicate() async throws {
        let devices = try await trio()
        let (a, b) = (devices[0], devices[1])
        let proxy = try FaultProxy(upstream: server)
        defer { proxy.stop() }
        a.use(server: proxy.url, credentials: credentials)
        clock.advance(60)
        try await a.engine.send(.credentials, data: "once", to: [try id(b)])
        try await proxy.setFault(.resetAfter, match: "/collections/messages/records/")
        let lost = await a.sync()
        XCTAssertEqual(lost.error, .network, lost.message ?? "")
        XCTAssertEqual(try a.vault.database.syncRead { try $0.outbox() }.count, 1, "kept for the retry")
        let afterLoss = try await messagesOnServer()
        XCTAssertEqual(afterLoss, 1, "the server stored it")
        await a.syncExpectingSuccess()
        XCTAssertEqual(try a.vault.database.syncRead { try $0.outbox() }, [])
        let afterRetry = try await messagesOnServer()
        XCTAssertEqual(afterRetry, 1, "no second copy")
        await b.syncExpectingSuccess()
        XCTAssertEqual(try b.vault.database.meta(.accountNextPassword), "once")
        let left = try await messagesOnServer()
        XCTAssertEqual(left, 0)
    }
}
