import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// A server whose listing never ends (`endless_next_page`: a new `Next-Page` link on every page)
/// stops the fetch at the client's limits (`KintoFetchLimits`: pages, records, time) with a
/// NETWORK error naming the limit; nothing of the listing is written, and the next sync against a
/// server that answers properly converges. A on the real Kinto, B through the proxy.
final class SyncFetchLimitTests: KintoAccountTestCase {
    /// What a failed fetch must leave as it was on B.
    private struct Snapshot: Equatable {
        var itemsMarker: String?
        var keystoresMarker: String?
        var itemIDs: Set<String>
        var pending: Int

        init(_ device: Device) async throws {
            itemsMarker = try device.vault.database.syncRead { try $0.marker(.items) }
            keystoresMarker = try device.vault.database.syncRead { try $0.marker(.keystores) }
            itemIDs = Set(try await device.items().keys)
            pending = try device.status().allPendingChanges
        }
    }

    /// A and B in step, then A adds `count` items that B has not fetched and B adds one of its own.
    private func setUpChanges(count: Int) async throws -> (a: Device, b: Device, proxy: FaultProxy, fromA: [String]) {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        try await a.add("Before", password: "p0")
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        var fromA: [String] = []
        for index in 0..<count { fromA.append(try await a.add("From A \(index)", password: "a\(index)").id) }
        await a.syncExpectingSuccess()
        try await b.add("From B", password: "b")
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        return (a, b, proxy, fromA)
    }

    /// B's engine through the proxy with these limits.
    private func limit(_ b: Device, through proxy: FaultProxy, _ limits: KintoFetchLimits) {
        let client = KintoClient(server: proxy.url, credentials: credentials, timeout: 5,
                                 now: { [clock = b.clock] in clock.date }, fetchLimits: limits)
        b.engine = SyncEngine(vault: b.vault, client: client, now: { [clock = b.clock] in clock.date })
    }

    /// B syncs into the endless listing: NETWORK, with a sentence holding `naming`; B as it was.
    private func syncIntoEndlessListing(_ b: Device, proxy: FaultProxy, naming: String,
                                        file: StaticString = #filePath, line: UInt = #line) async throws -> Int {
        let before = try await Snapshot(b)
        let logBefore = try await proxy.log().count
        try await proxy.setFault(.endlessNextPage, count: -1, match: "/collections/items/records")
        let report = await b.sync()
        try await proxy.setFault(.pass)
        XCTAssertEqual(report.error, .network, report.message ?? "no message", file: file, line: line)
        XCTAssertTrue(report.message?.contains(naming) == true, "names the limit: \(report.message ?? "")", file: file, line: line)
        XCTAssertEqual(try b.status().lastError, "NETWORK", file: file, line: line)
        XCTAssertEqual(report.downloaded, 0, file: file, line: line)
        let after = try await Snapshot(b)
        XCTAssertEqual(after, before, "nothing of the listing was written", file: file, line: line)
        let listings = try await proxy.log().dropFirst(logBefore).filter { $0.path.contains("/collections/items/records") }
        XCTAssertTrue(listings.allSatisfy { $0.fault == FaultProxy.Mode.endlessNextPage.rawValue && $0.status == 200 },
                      "\(listings.map(\.path))", file: file, line: line)
        let batches = try await proxy.log().dropFirst(logBefore).filter { $0.path.contains("/batch") }
        XCTAssertEqual(batches.count, 0, "the sync stopped at the fetch", file: file, line: line)
        return listings.count
    }

    /// Back on a proper server (standard limits): B gets A's items, A gets B's, both converge.
    private func assertRecovers(_ a: Device, _ b: Device, through proxy: FaultProxy, fromA: [String]) async throws {
        b.use(server: proxy.url, credentials: credentials)
        let report = await b.sync()
        XCTAssertNil(report.error, report.message ?? "")
        XCTAssertEqual(report.downloaded, fromA.count + 1, "A's items and the keystore")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await assertConverged([a, b])
        let onB = try await b.items()
        for id in fromA { XCTAssertNotNil(onB[id], id) }
        XCTAssertEqual(try b.status().allPendingChanges, 0)
        XCTAssertNil(try b.status().lastError)
    }

    func testAnEndlessListingStopsAtThePageLimitAndKeepsNothing() async throws {
        let (a, b, proxy, fromA) = try await setUpChanges(count: 2)
        limit(b, through: proxy, KintoFetchLimits(pages: 20, records: 1_000_000, seconds: 600))
        let pages = try await syncIntoEndlessListing(b, proxy: proxy, naming: "past 20 pages")
        XCTAssertEqual(pages, 20, "the 21st page is never asked for")
        try await assertRecovers(a, b, through: proxy, fromA: fromA)
    }

    func testAnEndlessListingStopsAtTheRecordLimitAndKeepsNothing() async throws {
        let (a, b, proxy, fromA) = try await setUpChanges(count: 3)
        // Each page repeats A's 3 items: 6 records after two pages, over the 5 allowed.
        limit(b, through: proxy, KintoFetchLimits(pages: 10_000, records: 5, seconds: 600))
        let pages = try await syncIntoEndlessListing(b, proxy: proxy, naming: "past 5 records")
        XCTAssertEqual(pages, 2)
        try await assertRecovers(a, b, through: proxy, fromA: fromA)
    }

    func testAnEndlessListingStopsAtTheTimeLimitAndKeepsNothing() async throws {
        let (a, b, proxy, fromA) = try await setUpChanges(count: 1)
        limit(b, through: proxy, KintoFetchLimits(pages: 1_000_000, records: 100_000_000, seconds: 2))
        let started = Date()
        let pages = try await syncIntoEndlessListing(b, proxy: proxy, naming: "longer than 2 s")
        let took = Date().timeIntervalSince(started)
        XCTAssertGreaterThan(pages, 2, "pages kept coming until the time ran out")
        XCTAssertTrue(took >= 2 && took < 20, "stopped after \(took) s")
        try await assertRecovers(a, b, through: proxy, fromA: fromA)
    }

}
