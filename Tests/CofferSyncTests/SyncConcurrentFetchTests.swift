import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// Two syncs of one vault at once (an agent's timer beside `coffer sync`): a fetch that was on the
/// network while the other stored newer changes must not store its older page over them.
final class SyncConcurrentFetchTests: XCTestCase {
    func testAFetchOvertakenByAnotherSyncStoresNothing() async throws {
        let server = try TestServer.require()
        let credentials = try await server.makeAccount()
        let directory = try temporaryDirectory(self)
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        let doomed = try await a.add("Doomed")
        await a.syncExpectingSuccess()

        // b's slow sync: it fetched the page holding the item…
        let client = KintoClient(server: server.url, credentials: credentials, timeout: 10)
        let before = try b.vault.database.syncRead { try $0.marker(.items) }
        guard case .changes(let page, let etag) = try await client.fetchChanges(collection: .items, since: before) else {
            return XCTFail("the new item is not on the server")
        }
        // …while the item was removed and b's other sync stored that.
        try await a.remove(doomed.id)
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let newer = try b.vault.database.syncRead { try $0.marker(.items) }
        let itemsBefore = try await b.items()
        XCTAssertNil(itemsBefore[doomed.id])

        let outcome = try await FetchStep.store(page, etag: etag, .items, SyncContext(vault: b.vault, client: client),
                                          fetchedSince: before, serverHasEverything: false)
        XCTAssertEqual(outcome.received, 0, "the overtaken page is dropped")
        let itemsAfter = try await b.items()
        XCTAssertNil(itemsAfter[doomed.id], "a removed item came back from an older page")
        XCTAssertEqual(try b.vault.database.syncRead { try $0.marker(.items) }, newer, "the marker did not move back")
        await b.syncExpectingSuccess()
        try await assertConverged([a, b])
    }
}
