import CofferCore
import CofferSync
import Foundation
import XCTest

/// `KintoClient` against the real Kinto of `COFFER_TEST_KINTO_URL`, one fresh account per test.
final class KintoClientTests: XCTestCase {
    // MARK: Accounts

    func testCreatedAccountPassesTheCredentialCheck() async throws {
        let server = try TestServer.require()
        let credentials = try await server.makeAccount()
        let client = KintoClient(server: server.url, credentials: credentials)
        let user = try await client.checkCredentials()
        XCTAssertEqual(user, "account:\(credentials.user)")
    }

    func testCreatingAnExistingAccountSaysSo() async throws {
        let server = try TestServer.require()
        let credentials = try await server.makeAccount()
        let error = await kintoError {
            try await KintoClient.createAccount(server: server.url, user: credentials.user, password: "other")
        }
        XCTAssertEqual(error, .accountExists(user: credentials.user))
        XCTAssertTrue(error?.userMessage.contains(credentials.user) ?? false)
    }

    func testWrongPasswordIsUnauthorizedAtOnce() async throws {
        let server = try TestServer.require()
        let credentials = try await server.makeAccount()
        let client = KintoClient(server: server.url,
                                 credentials: KintoCredentials(user: credentials.user, password: "wrong"),
                                 timeout: 20)
        let started = Date()
        let checkError = await kintoError { try await client.checkCredentials() }
        let fetchError = await kintoError { try await client.fetchChanges(collection: .items, since: nil) }
        let record = try recordJSON(["v": 1])
        let batchError = await kintoError {
            try await client.batch([.create(collection: .items, id: "a", record: record)])
        }
        XCTAssertEqual(checkError, .unauthorized)
        XCTAssertEqual(fetchError, .unauthorized)
        XCTAssertEqual(batchError, .unauthorized)
        // The URLSession trap (a 401 with a Basic challenge never ends): without the challenge-cancelling delegate this hangs forever.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testUnknownUserIsUnauthorized() async throws {
        let server = try TestServer.require()
        let client = KintoClient(server: server.url,
                                 credentials: KintoCredentials(user: "nobody-\(UUID().uuidString)", password: "x"))
        let error = await kintoError { try await client.checkCredentials() }
        XCTAssertEqual(error, .unauthorized)
    }

    func testServerLimitsGiveTheBatchMaximum() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        let limits = try await client.serverLimits()
        XCTAssertEqual(limits.batchMaxRequests, 25)
    }

    // MARK: Reading

    func testNeverWrittenCollectionListsNothing() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        guard case .changes(let records, let etag) = try await client.fetchChanges(collection: .keystores, since: nil) else {
            return XCTFail("expected changes")
        }
        XCTAssertEqual(records, [])
        XCTAssertFalse(etag.isEmpty)
        XCTAssertFalse(etag.contains("\""), "the marker is unquoted")
        let again = try await client.fetchChanges(collection: .keystores, since: etag)
        XCTAssertEqual(again, .notModified)
    }

    func testUnchangedCollectionAnswersNotModified() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        _ = try await client.batch([.create(collection: .items, id: "a", record: try recordJSON(["v": 1]))])
        guard case .changes(let records, let etag) = try await client.fetchChanges(collection: .items, since: nil) else {
            return XCTFail("expected changes")
        }
        XCTAssertEqual(records.count, 1)
        let unchanged = try await client.fetchChanges(collection: .items, since: etag)
        XCTAssertEqual(unchanged, .notModified)
        // A quoted marker is accepted as well.
        let quoted = try await client.fetchChanges(collection: .items, since: "\"\(etag)\"")
        XCTAssertEqual(quoted, .notModified)
    }

    func testSinceListsUpdatesAndTombstonesOldestFirst() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        let created = try await client.batch(["a", "b", "c"].map {
            .create(collection: .items, id: $0, record: try recordJSON(["v": $0]))
        })
        guard case .changes(_, let marker) = try await client.fetchChanges(collection: .items, since: nil) else {
            return XCTFail("expected changes")
        }
        let bVersion = try lastModified(try acceptedRecord(created[1]))
        let aVersion = try lastModified(try acceptedRecord(created[0]))
        let written = try await client.batch([
            .update(collection: .items, id: "b", record: try recordJSON(["v": "b2"]), lastModified: bVersion),
            .delete(collection: .items, id: "a", lastModified: aVersion),
        ])
        let updated = try acceptedRecord(written[0])
        let tombstone = try acceptedRecord(written[1])

        guard case .changes(let records, let etag) = try await client.fetchChanges(collection: .items, since: marker) else {
            return XCTFail("expected changes")
        }
        XCTAssertEqual(records.count, 2)
        let objects = try records.map { try jsonObject($0) }
        XCTAssertEqual(objects.map { $0["id"] as? String }, ["b", "a"])
        XCTAssertEqual(objects[0]["v"] as? String, "b2")
        XCTAssertEqual(objects[1]["deleted"] as? Bool, true)
        // The same JSON (listings keep the server's bytes, batch answers are re-encoded).
        XCTAssertEqual(objects[0] as NSDictionary, try jsonObject(updated) as NSDictionary)
        XCTAssertEqual(objects[1] as NSDictionary, try jsonObject(tombstone) as NSDictionary)
        XCTAssertEqual(etag, String(try lastModified(tombstone)))
        // Without a marker, deleted records are not listed at all.
        guard case .changes(let all, _) = try await client.fetchChanges(collection: .items, since: nil) else {
            return XCTFail("expected changes")
        }
        XCTAssertEqual(try all.map { try jsonObject($0)["id"] as? String }, ["c", "b"])
    }

    func testPagesAreFollowedToTheEnd() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        let ids = (0..<7).map { "r\($0)" }
        let results = try await client.batch(ids.map { .create(collection: .items, id: $0, record: try recordJSON(["v": $0])) })
        XCTAssertEqual(results.count, 7)
        guard case .changes(let records, let etag) = try await client.fetchChanges(collection: .items, since: "0",
                                                                                   pageSize: 2) else {
            return XCTFail("expected changes")
        }
        XCTAssertEqual(try records.map { try jsonObject($0)["id"] as? String }, ids)
        let versions = try records.map { try lastModified($0) }
        XCTAssertEqual(versions, versions.sorted())
        XCTAssertEqual(etag, String(versions.last ?? 0))
    }

    func testItemRecordsRoundTrip() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        let item = ItemRecord(id: UUID().uuidString, isActive: true, originHashes: ["aa", "bb"], tagHashes: ["cc"],
                              encrypted: "c2VhbGVk/+=", lastModified: 0)
        let results = try await client.batch([
            .create(collection: .items, id: item.id, record: Data(try RecordCoding.encode(item).utf8)),
        ])
        let accepted = try acceptedRecord(results[0])
        let version = try lastModified(accepted)
        guard case .changes(let records, _) = try await client.fetchChanges(collection: .items, since: "0") else {
            return XCTFail("expected changes")
        }
        let fetched = try RecordCoding.decode(ItemRecord.self, from: String(decoding: records[0], as: UTF8.self))
        var expected = item
        expected.lastModified = version
        XCTAssertEqual(fetched, expected)

        let deleted = try await client.batch([.delete(collection: .items, id: item.id, lastModified: version)])
        let tombstone = try RecordCoding.decode(ItemRecord.self,
                                                from: String(decoding: try acceptedRecord(deleted[0]), as: UTF8.self))
        XCTAssertTrue(tombstone.isDeleted)
        XCTAssertGreaterThan(tombstone.lastModified, version)
    }

    // MARK: Writing

    func testPreconditionsGuardEveryWrite() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        let first = try await client.batch([.create(collection: .items, id: "x", record: try recordJSON(["v": 1]))])
        let original = try acceptedRecord(first[0])
        let version1 = try lastModified(original)

        let duplicate = try await client.batch([.create(collection: .items, id: "x", record: try recordJSON(["v": 9]))])
        XCTAssertEqual(duplicate, [.preconditionFailed(existing: original)])

        let update = try await client.batch([
            .update(collection: .items, id: "x", record: try recordJSON(["v": 2]), lastModified: version1),
        ])
        let updated = try acceptedRecord(update[0])
        let version2 = try lastModified(updated)
        XCTAssertGreaterThan(version2, version1)
        XCTAssertEqual(try jsonObject(updated)["v"] as? Int, 2)

        let staleUpdate = try await client.batch([
            .update(collection: .items, id: "x", record: try recordJSON(["v": 3]), lastModified: version1),
        ])
        XCTAssertEqual(staleUpdate, [.preconditionFailed(existing: updated)])
        let staleDelete = try await client.batch([.delete(collection: .items, id: "x", lastModified: version1)])
        XCTAssertEqual(staleDelete, [.preconditionFailed(existing: updated)])

        let delete = try await client.batch([.delete(collection: .items, id: "x", lastModified: version2)])
        let tombstone = try jsonObject(try acceptedRecord(delete[0]))
        XCTAssertEqual(tombstone["deleted"] as? Bool, true)
        XCTAssertEqual(tombstone["id"] as? String, "x")

        // Updating a deleted record: 412 without an existing record.
        let afterDelete = try await client.batch([
            .update(collection: .items, id: "x", record: try recordJSON(["v": 4]), lastModified: version2),
        ])
        XCTAssertEqual(afterDelete, [.preconditionFailed(existing: nil)])
        // Deleting a record that never existed: 404, a plain failure.
        let missing = try await client.batch([.delete(collection: .items, id: "never", lastModified: version2)])
        guard case .failed(404, _) = missing[0] else { return XCTFail("expected 404, got \(missing)") }
    }

    func testEachWriteInABatchIsAcknowledgedAlone() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        _ = try await client.batch([.create(collection: .items, id: "taken", record: try recordJSON(["v": 0]))])
        let results = try await client.batch([
            .create(collection: .items, id: "one", record: try recordJSON(["v": 1])),
            .create(collection: .items, id: "taken", record: try recordJSON(["v": 1])),
            .create(collection: .keystores, id: "default", record: try recordJSON(["k": 1])),
            .create(collection: .items, id: "bad id!", record: try recordJSON(["v": 1])),
            .create(collection: .items, id: "notjson", record: Data("[1]".utf8)),
        ])
        XCTAssertEqual(results.count, 5)
        _ = try acceptedRecord(results[0])
        guard case .preconditionFailed(.some) = results[1] else { return XCTFail("expected 412, got \(results[1])") }
        _ = try acceptedRecord(results[2])
        guard case .failed(0, _) = results[3], case .failed(0, _) = results[4] else {
            return XCTFail("invalid requests must fail without being sent: \(results)")
        }
    }

    func testLastModifiedAndIdInTheRecordAreNeverSent() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        let future: Int64 = 4_000_000_000_000
        let results = try await client.batch([
            .create(collection: .items, id: "r", record: try recordJSON(["id": "other", "last_modified": future, "v": 1])),
        ])
        let record = try jsonObject(try acceptedRecord(results[0]))
        XCTAssertEqual(record["id"] as? String, "r")
        XCTAssertLessThan(try lastModified(try acceptedRecord(results[0])), future)
        XCTAssertEqual(record["v"] as? Int, 1)
    }

    func testSixtyWritesAreSplitAtTheServerLimit() async throws {
        let server = try TestServer.require()
        let client = try await server.makeClient()
        let ids = (0..<60).map { String(format: "rec%02d", $0) }
        let results = try await client.batch(ids.map { .create(collection: .items, id: $0, record: try recordJSON(["v": $0])) })
        XCTAssertEqual(results.count, 60)
        for (id, result) in zip(ids, results) {
            XCTAssertEqual(try jsonObject(try acceptedRecord(result))["id"] as? String, id)
        }
        guard case .changes(let records, _) = try await client.fetchChanges(collection: .items, since: nil) else {
            return XCTFail("expected changes")
        }
        XCTAssertEqual(Set(try records.map { try jsonObject($0)["id"] as? String }), Set(ids))
    }

    func testEmptyBatchSendsNothing() async throws {
        let client = KintoClient(server: URL(string: "http://127.0.0.1:\(try closedPort())/v1")!,
                                 credentials: KintoCredentials(user: "u", password: "p"))
        let results = try await client.batch([])
        XCTAssertEqual(results, [])
    }

    // MARK: Transport

    func testClosedPortIsOffline() async throws {
        let client = KintoClient(server: URL(string: "http://127.0.0.1:\(try closedPort())/v1")!,
                                 credentials: KintoCredentials(user: "u", password: "p"), timeout: 5)
        let started = Date()
        let error = await kintoError { try await client.fetchChanges(collection: .items, since: nil) }
        guard case .offline = error else { return XCTFail("expected offline, got \(String(describing: error))") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        let accountError = await kintoError {
            try await KintoClient.createAccount(server: URL(string: "http://127.0.0.1:\(try closedPort())/v1")!,
                                                user: "u", password: "p")
        }
        guard case .offline = accountError else { return XCTFail("expected offline, got \(String(describing: accountError))") }
    }

    func testUnknownHostIsOffline() async throws {
        let client = KintoClient(server: URL(string: "http://coffer-no-such-host.invalid/v1")!,
                                 credentials: KintoCredentials(user: "u", password: "p"), timeout: 5)
        let error = await kintoError { try await client.checkCredentials() }
        guard case .offline = error else { return XCTFail("expected offline, got \(String(describing: error))") }
    }

    func testErrorMessagesAreOneSentence() {
        let errors: [KintoError] = [
            .offline(message: "x"), .network(message: "timeout"), .unauthorized,
            .backoff(until: Date(timeIntervalSince1970: 0)), .accountExists(user: "alice"),
        ]
        for error in errors {
            XCTAssertTrue(error.userMessage.hasSuffix("."), error.userMessage)
            XCTAssertFalse(error.userMessage.contains("\n"))
        }
    }
}
