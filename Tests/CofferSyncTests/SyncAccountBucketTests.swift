import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Issue 33: a personal vault learns its account's bucket id after a sync and names it from then
/// on (architecture §4, "Buckets"); the server does half the work for each request. Real Kinto,
/// requests seen by the loopback proxy.
final class SyncAccountBucketTests: KintoAccountTestCase {
    func testAVaultLearnsItsBucketIdAndSyncsByItWithAFileAnotherDeviceReceives() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        _ = try await a.add("Door", username: "ann", password: "before-the-bucket")
        let learning = try XCTUnwrap(try SyncEngine.forAccount(of: a.vault))
        let before = await learning.client
        XCTAssertEqual(before.bucket, "default", "nothing is known before the first sync")
        let first = await learning.sync()
        XCTAssertNil(first.error, first.message ?? "")
        let after = await learning.client
        XCTAssertNotEqual(after.bucket, "default", "the engine names the bucket from its next sync on")

        var rootRequest = URLRequest(url: try XCTUnwrap(URL(string: server.url.absoluteString + "/")))
        rootRequest.setValue("Basic " + Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString(),
                             forHTTPHeaderField: "Authorization")
        let root = try jsonObject(try await URLSession.shared.data(for: rootRequest).0)
        let expected = try XCTUnwrap((root["user"] as? [String: Any])?["bucket"] as? String)
        XCTAssertEqual(try a.vault.database.meta(.accountBucket), expected, "the server's own id for the account's bucket")
        XCTAssertNotEqual(expected, "default")

        // Through the proxy from here on, to see each request's path.
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        try SyncAccount(server: proxy.url, user: credentials.user, password: credentials.password, bucket: expected)
            .save(to: a.vault.database)
        let engine = try XCTUnwrap(try SyncEngine.forAccount(of: a.vault))
        let client = await engine.client
        XCTAssertEqual(client.bucket, expected)
        XCTAssertFalse(client.bucketIsShared, "the account's own bucket: writes keep their permissions")
        // The first sync by id lists what the learning sync pushed; the second has nothing to do.
        for _ in 1...2 {
            let report = await engine.sync()
            XCTAssertNil(report.error, report.message ?? "")
        }
        let syncsByID = try await proxy.log()
        let idleRequests = Array(syncsByID.suffix(3))
        XCTAssertEqual(idleRequests.map(\.status), [304, 304, 304], "\(syncsByID)")
        XCTAssertTrue(syncsByID.allSatisfy { $0.path.contains("/buckets/\(expected)/collections/") }, "\(syncsByID)")

        // Writes by id, into a collection the vault had never used: the learning made it.
        let scans = try await a.add("Scans", username: "ann")
        let bytes = Data("a file first sent after the bucket was learned".utf8)
        try await a.vault.attach(bytes, named: "passport.txt", to: scans.id)
        let sent = await engine.sync()
        XCTAssertNil(sent.error, sent.message ?? "")
        let writes = try await proxy.log().dropFirst(syncsByID.count)
        XCTAssertFalse(writes.contains { $0.path.contains("/buckets/default") }, "\(writes)")
        XCTAssertTrue(writes.contains { $0.method == "PUT" && $0.path.contains("/buckets/\(expected)/collections/attachments/records/") },
                      "\(writes)")

        // The same bucket as `default`: another device, knowing nothing of the id, gets everything.
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        await b.syncExpectingSuccess()
        let onB = try await b.items()
        XCTAssertEqual(Set(onB.values.map(\.title)), ["Door", "Scans"])
        let (_, received) = try await b.vault.attachmentData("passport.txt", of: try XCTUnwrap(onB[scans.id]))
        XCTAssertEqual(received, bytes)

        // Another account's vault must not keep this one's bucket; signing out forgets it too.
        try SyncAccount(server: server.url, user: "someone-else", password: "x").save(to: a.vault.database)
        XCTAssertNil(try a.vault.database.meta(.accountBucket))
        try SyncAccount(server: server.url, user: credentials.user, password: credentials.password, bucket: expected)
            .save(to: a.vault.database)
        try SyncAccount.remove(from: a.vault.database)
        XCTAssertNil(try a.vault.database.meta(.accountBucket))
    }

    func testAServerNamingNoValidBucketLeavesTheVaultOnDefault() async throws {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        try SyncAccount(server: proxy.url, user: credentials.user, password: credentials.password).save(to: a.vault.database)
        let engine = try XCTUnwrap(try SyncEngine.forAccount(of: a.vault))
        // The root's answer is a stranger's: one whose bucket id is a path is refused, and asked again next time.
        try await proxy.setFault(.replaceBody, count: -1, match: "=/v1/", message: #"{"user": {"id": "account:x", "bucket": "../../accounts/x"}}"#)
        let report = await engine.sync()
        XCTAssertNil(report.error, report.message ?? "")
        XCTAssertNil(try a.vault.database.meta(.accountBucket))
        let root = try await proxy.log().filter { $0.path == "/v1/" }
        XCTAssertFalse(root.isEmpty, "the root was asked, and answered by the proxy")
        XCTAssertTrue(root.allSatisfy { $0.fault == "replace_body" }, "\(root)")
        try await proxy.setFault(.pass)
        let again = await engine.sync()
        XCTAssertNil(again.error, again.message ?? "")
        XCTAssertNotNil(try a.vault.database.meta(.accountBucket), "the next sync learns it")
    }
}
