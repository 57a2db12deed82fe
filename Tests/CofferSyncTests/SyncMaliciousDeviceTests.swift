import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// A server that is an adversary, against the device registry and the messages (issue 41,
/// architecture §9): it serves back what it held before — a removed device's record, a message
/// already handled. Real Kinto, real vault files, writes with the account's own credentials (after
/// a rotation, the new password: the server knows it).
final class SyncMaliciousDeviceTests: KintoAccountTestCase {
    /// One clock for every device: a message's creation and an unlock compare across devices.
    let clock = TestClock()

    /// Devices named `names`, each unlocked and registered, the first the vault's creator.
    func devices(_ names: [String]) async throws -> [Device] {
        let first = try await Device.create(names[0], in: directory, server: server.url, credentials: credentials, clock: clock)
        await first.syncExpectingSuccess()
        var devices = [first]
        for name in names.dropFirst() {
            devices.append(try await Device.join(name, in: directory, server: server.url, credentials: credentials, clock: clock))
        }
        for device in devices { await device.syncExpectingSuccess() }
        return devices
    }

    /// The account as the server sees it now: `device`'s password (a rotation changes it).
    func raw(as device: Device) throws -> RawAccount {
        let password = try XCTUnwrap(try device.vault.database.meta(.accountPassword))
        return RawAccount(server: server, credentials: KintoCredentials(user: credentials.user, password: password))
    }

    /// `device rm NAME --rotate` on `remover`, carried through: the remaining devices take the new
    /// password, the remover changes it on the server. Returns the messages that carried it, as the
    /// server held them.
    @discardableResult
    func removeWithRotation(_ removed: Device, by remover: Device, remaining: [Device]) async throws -> [[String: Any]] {
        try await remover.engine.removeDevice(try removed.vault.deviceID(), rotate: true)
        await remover.syncExpectingSuccess()
        let messages = try await raw(as: remover).records("messages")
        for device in remaining { await device.syncExpectingSuccess() }
        await remover.syncExpectingSuccess()
        XCTAssertNil(try remover.vault.database.meta(.pendingRotation), "rotated")
        // The remaining devices are refused once, then adopt the password they were sent.
        for device in remaining { await device.syncExpectingSuccess() }
        return messages
    }

    /// After `device rm C --rotate`, the server lists C's record again (the registry from before
    /// the removal) and delivers a lock C sealed to A. A never lists C again, never sends it a
    /// message, and refuses what C sends: the removal stands. Once the server drops the record,
    /// every device lists the same two.
    func testARemovedDevicesRecordServedAgainStaysRemoved() async throws {
        let all = try await devices(["a", "b", "c"])
        let (a, b, c) = (all[0], all[1], all[2])
        let cID = try c.vault.deviceID()
        _ = try await c.engine.devices() // C knows A's record: it can seal to A after its removal
        let before = try await RawAccount(server: server, credentials: credentials).records("devices")
        let cRecord = try XCTUnwrap(before.first { $0["id"] as? String == cID })
        try await removeWithRotation(c, by: a, remaining: [b])
        let server = try raw(as: a)

        // The registry from before the removal: C's own record, byte for byte, as it was.
        try await server.put("devices", cRecord)
        let listed = try await a.engine.devices()
        XCTAssertEqual(listed.compactMap(\.name).sorted(), ["a", "b"], "the removed device is not listed again")
        do {
            try await a.engine.send(.lock, to: [cID])
            XCTFail("a message was sealed to the removed device")
        } catch {}

        // C, cut off, seals a lock to A; the server delivers it.
        clock.advance(60)
        let sealed = try await c.engine.send(.lock, to: [try a.vault.deviceID()])
        let message = try XCTUnwrap(sealed.first)
        try await server.put("messages", try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(message.text().utf8)) as? [String: Any]))
        let report = await a.sync()
        XCTAssertNil(report.error, report.message ?? "")
        let locked = await a.vault.isLocked
        XCTAssertFalse(locked, "a lock from the removed device is refused")
        let leftAfterRefusal = try await server.ids("messages")
        XCTAssertEqual(leftAfterRefusal, [], "and deleted")
        let refusedByC = await c.sync()
        XCTAssertEqual(refusedByC.error, .syncAuth, "C is still cut off")

        // The server behaves again: every device lists the same two and nothing was lost.
        _ = try await server.request("DELETE", "buckets/default/collections/devices/records/\(cID)")
        for device in [a, b] {
            await device.syncExpectingSuccess()
            let known = try await device.engine.devices()
            XCTAssertEqual(known.compactMap(\.name).sorted(), ["a", "b"], device.name)
        }
    }

    /// Two rotations: B handled the first password's message, then the second's. The server puts
    /// the first message back (a replay: same id, same sealed bytes, not expired). B does not take
    /// the old password again — the replay is only deleted — and keeps syncing with the current one.
    func testAHandledRotationMessagePutBackIsNotAppliedTwice() async throws {
        let all = try await devices(["a", "b", "c", "d"])
        let (a, b, c, d) = (all[0], all[1], all[2], all[3])
        let bID = try b.vault.deviceID()
        let first = try await removeWithRotation(d, by: a, remaining: [b, c])
        let toB = try XCTUnwrap(first.first { $0["recipient"] as? String == bID })
        let firstPassword = try XCTUnwrap(try b.vault.database.meta(.accountPassword))
        XCTAssertNotEqual(firstPassword, credentials.password, "B adopted the first rotation's password")
        clock.advance(60)
        try await removeWithRotation(c, by: a, remaining: [b])
        let secondPassword = try XCTUnwrap(try b.vault.database.meta(.accountPassword))
        XCTAssertNotEqual(secondPassword, firstPassword, "B adopted the second rotation's password")

        // The server puts the first rotation's message to B back.
        let server = try raw(as: a)
        try await server.put("messages", toB)
        clock.advance(60)
        await b.syncExpectingSuccess()
        XCTAssertNil(try b.vault.database.meta(.accountNextPassword), "the old password is not taken again")
        XCTAssertEqual(try b.vault.database.meta(.accountPassword), secondPassword)
        let left = try await server.ids("messages")
        XCTAssertEqual(left, [], "the replay was deleted")
        let item = try await a.add("After the replay", password: "p")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await assertConverged([a, b])
        let onB = try await b.items()
        XCTAssertEqual(onB[item.id]?.entry.password, "p")
    }
}
