import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// The Airmail journal against the real Kinto: the device learns the server's clock from `Date`, writes
/// corrected times, and the later of two offline edits wins in either sync order.
final class ClockSyncTests: XCTestCase {
    var server: TestServer!
    var credentials: KintoCredentials!
    var directory: URL!

    override func setUp() async throws {
        server = try TestServer.require()
        credentials = try await server.makeAccount()
        directory = try temporaryDirectory(self)
    }

    private func pair(clockA: TestClock = .live(), clockB: TestClock = .live()) async throws -> (Device, Device) {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials, clock: clockA)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials, clock: clockB)
        return (a, b)
    }

    /// A server whose `Date` runs 10 minutes ahead of (then behind) the device: the estimate lands
    /// within 2 s, is stored, and is shown as a warning.
    func testTheOffsetFromAShiftedServerDateIsEstimatedStoredAndShown() async throws {
        for shift in [600.0, -600.0] {
            credentials = try await server.makeAccount()
            let a = try await Device.create("a-\(Int(shift))", in: directory, server: server.url, credentials: credentials,
                                            clock: .live())
            let proxy = try FaultProxy(upstream: server)
            defer { proxy.stop() }
            a.use(server: proxy.url, credentials: credentials)
            try await proxy.setFault(.shiftDate, count: -1, seconds: shift)
            let report = await a.sync()
            XCTAssertNil(report.error, report.message ?? "")
            let skew = try XCTUnwrap(report.clockSkew)
            XCTAssertEqual(Double(skew.offsetMilliseconds), shift * 1000, accuracy: 2000, "shift \(shift)")
            XCTAssertLessThanOrEqual(skew.uncertaintyMilliseconds, 1500, "about one second of `Date` plus a round trip")
            let status = try a.status()
            XCTAssertEqual(status.clockSkewMs, skew.offsetMilliseconds, "stored")
            XCTAssertEqual(status.clockWarning,
                           shift > 0 ? "clock 10 min behind the server (corrected)" : "clock 10 min ahead of the server (corrected)")
        }
    }

    func testAServerOnTheSameClockGivesNoWarning() async throws {
        let (a, _) = try await pair()
        let status = try a.status()
        XCTAssertLessThan(abs(try XCTUnwrap(status.clockSkewMs)), 2000)
        XCTAssertNil(status.clockWarning)
    }

    /// The journal's race: two devices rename one item offline, B five seconds of real time after
    /// A. Whichever syncs first, both end with B's values, A's password in history, nothing lost.
    func testTheJournalsRaceEndsAtTheLaterEditInEitherSyncOrder() async throws {
        for bFirst in [false, true] {
            credentials = try await server.makeAccount()
            directory = try temporaryDirectory(self)
            let (a, b) = try await pair()
            let item = try await a.add("Journal", password: "p0")
            await a.syncExpectingSuccess()
            await b.syncExpectingSuccess()
            try await a.edit(item.id) { $0.title = "Renamed on A"; $0.entry.password = "password-a" }
            try await Task.sleep(nanoseconds: 3_000_000_000)  // beyond either device's estimate error
            try await b.edit(item.id) { $0.title = "Renamed on B"; $0.entry.password = "password-b" }
            let (first, second) = bFirst ? (b, a) : (a, b)
            await first.syncExpectingSuccess()
            await second.syncExpectingSuccess()  // merges
            await first.syncExpectingSuccess()
            let order = bFirst ? "B synced first" : "A synced first"
            for device in [a, b] {
                let result = try await device.items()[item.id]
                XCTAssertEqual(result?.title, "Renamed on B", "\(order), on \(device.name)")
                XCTAssertEqual(result?.entry.password, "password-b", "\(order), on \(device.name)")
                XCTAssertTrue(result?.history.contains { $0.patch.objectValue?["password"] == .string("password-a") } ?? false,
                              "\(order), on \(device.name): A's password kept in history")
            }
            try await assertConverged([a, b])
            let reviews = try await second.vault.reviews()
            let title = reviews.first?.conflicts.first { $0.field == .title }
            XCTAssertEqual(title?.chosen, second === b ? .local : .remote, "\(order): the review says B's won")
            XCTAssertNotNil(title?.localStamp, "\(order): the review shows when each side changed it")
            XCTAssertNotNil(title?.remoteStamp)
        }
    }

    /// Both devices on the right clock, each syncing at a different fraction of the server's whole
    /// second: neither corrects its clock, so B's edit 0.3 s after A's wins in either sync order.
    /// With the middle of the interval as the estimate, A (synced at .05 s) moved its clock ~0.45 s
    /// ahead and B (at .90 s) ~0.4 s back, and A's earlier edit won (a crash-point run found it).
    func testEditsLessThanASecondApartKeepTheirOrderOnRightClocks() async throws {
        for bFirst in [false, true] {
            credentials = try await server.makeAccount()
            directory = try temporaryDirectory(self)
            let (a, b) = try await pair()
            let item = try await a.add("Close", password: "p0")
            try await Self.sleep(untilFraction: 0.05)
            await a.syncExpectingSuccess()
            try await Self.sleep(untilFraction: 0.90)
            await b.syncExpectingSuccess()
            XCTAssertEqual(try a.status().clockSkewMs, 0, "A's clock agrees with the server's")
            XCTAssertEqual(try b.status().clockSkewMs, 0, "B's clock agrees with the server's")
            try await a.edit(item.id) { $0.entry.password = "password-a" }
            try await Task.sleep(nanoseconds: 300_000_000)
            try await b.edit(item.id) { $0.entry.password = "password-b" }
            let (first, second) = bFirst ? (b, a) : (a, b)
            await first.syncExpectingSuccess()
            await second.syncExpectingSuccess()  // merges
            await first.syncExpectingSuccess()
            for device in [a, b] {
                let result = try await device.items()[item.id]
                XCTAssertEqual(result?.entry.password, "password-b", "\(bFirst ? "B" : "A") synced first, on \(device.name)")
            }
            try await assertConverged([a, b])
        }
    }

    /// A device 10 minutes fast that measured its offset at .05 s of the server's second: its
    /// corrected clock (the end of the interval nearest its own) is then up to ~0.95 s ahead of the
    /// server's. The versions it pushes must still carry revisions at or below the server's time
    /// for their push, or a version re-created over their tombstone (floored at the server's time)
    /// counts as older than them: a randomized history warned of a rollback that was none.
    func testARevisionIsNeverAheadOfTheServersTimeForItsPush() async throws {
        let fast = try await Device.create("fast", in: directory, server: server.url, credentials: credentials,
                                           clock: .live(offset: 600))
        await fast.syncExpectingSuccess()
        for round in 0..<3 {
            try await Self.sleep(untilFraction: 0.05)
            await fast.syncExpectingSuccess()
            let item = try await fast.add("Item \(round)")
            try await fast.edit(item.id) { $0.entry.password = "edited" }
            await fast.syncExpectingSuccess()
        }
        let records = try await RawAccount(server: server, credentials: credentials).records("items")
        XCTAssertEqual(records.count, 3)
        for record in records {
            let lastModified = try XCTUnwrap(record["last_modified"] as? Int)
            let lineage = try XCTUnwrap(Lineage.of(try XCTUnwrap(record["encrypted"] as? String)))
            XCTAssertLessThanOrEqual(lineage.revision, UInt64(lastModified), "the server took it at \(lastModified)")
        }
    }

    /// Sleeps until the wall clock's fraction of a second is `fraction`.
    private static func sleep(untilFraction fraction: Double) async throws {
        let now = Date().timeIntervalSince1970
        var wait = fraction - (now - now.rounded(.down))
        if wait < 0 { wait += 1 }
        try await Task.sleep(nanoseconds: UInt64(wait * 1e9))
    }

    /// A device whose clock is 10 minutes fast learns it from the server and stamps its edit with
    /// the corrected time: a genuinely later edit on another device wins.
    func testADeviceTenMinutesFastLosesToAGenuinelyLaterEdit() async throws {
        let (fast, b) = try await pair(clockA: .live(offset: 600))
        XCTAssertEqual(Double(try XCTUnwrap(fast.status().clockSkewMs)), -600_000, accuracy: 2000)
        let item = try await fast.add("Shared", password: "p0")
        XCTAssertEqual(Double(item.created.milliseconds), Date().timeIntervalSince1970 * 1000, accuracy: 3000,
                       "created by the corrected clock")
        await fast.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let edited = try await fast.edit(item.id) { $0.entry.password = "from-the-fast-clock" }
        let stamp = try XCTUnwrap(edited.times[.password])
        XCTAssertEqual(Double(stamp.at.milliseconds), Date().timeIntervalSince1970 * 1000, accuracy: 3000,
                       "stamped with the corrected time, not 10 minutes ahead")
        try await Task.sleep(nanoseconds: 3_000_000_000)
        try await b.edit(item.id) { $0.entry.password = "genuinely-later" }
        await b.syncExpectingSuccess()
        await fast.syncExpectingSuccess()  // merges
        await b.syncExpectingSuccess()
        for device in [fast, b] {
            let result = try await device.items()[item.id]
            XCTAssertEqual(result?.entry.password, "genuinely-later", device.name)
        }
        try await assertConverged([fast, b])
    }
}
