@testable import CofferSync
import CofferCore
import Foundation
import XCTest

/// The pure parts of the Kinto client: headers, sub-requests, sub-response mapping, listings.
final class KintoCodingTests: XCTestCase {
    func testHeadersAreLookedUpRegardlessOfCase() {
        let headers = KintoHeaders(json: ["ETag": "\"12\"", "retry-after": "5", "BACKOFF": " 7 ", "Bad": "x"])
        XCTAssertEqual(headers["etag"], "\"12\"")
        XCTAssertEqual(headers["Etag"], "\"12\"")
        XCTAssertEqual(headers.seconds("Retry-After"), 5)
        XCTAssertEqual(headers.seconds("Backoff"), 7)
        XCTAssertNil(headers.seconds("Bad"))
        XCTAssertNil(headers.seconds("Missing"))
        XCTAssertNil(KintoHeaders(json: ["Retry-After": "-3"]).seconds("Retry-After"))
    }

    /// Headers as libcurl hands them over: the status line, then `Name: value` lines.
    func testRawHeadersAreParsedByName() {
        let raw = "HTTP/1.1 200 OK\r\nDate: Tue, 24 Nov 2026 22:42:51 GMT\r\nEtag: \"1795\"\r\n"
            + "Next-Page:  http://h/v1/x?_token=a:b \r\nno colon here\r\n\r\n"
        let headers = KintoHeaders(raw: Data(raw.utf8))
        XCTAssertEqual(headers["date"], "Tue, 24 Nov 2026 22:42:51 GMT", "split at the first colon only")
        XCTAssertEqual(headers["ETag"], "\"1795\"")
        XCTAssertEqual(headers["next-page"], "http://h/v1/x?_token=a:b")
        XCTAssertNil(headers["HTTP/1.1 200 OK"])
    }

    func testRecordIDsFollowKintosPattern() {
        for id in ["a", "A1", "0_x-y", UUID().uuidString] {
            XCTAssertTrue(KintoRecordID.isValid(id), id)
        }
        for id in ["", "_a", "-a", "a.b", "a/b", "a b", "é", "a?"] {
            XCTAssertFalse(KintoRecordID.isValid(id), id)
        }
    }

    /// `putRecord`'s body, written by `JSONEncoder` for the speed of a file chunk's base64, is the
    /// bytes the general writer gives: the same escapes, the same order of Coffer's field names.
    func testStringRecordBodyMatchesTheGeneralWriter() throws {
        let chunk = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).base64EncodedString()
        for fields in [["attachment": "F", "index": "0", "count": "33", "data": chunk],
                       ["box": "quote\" back\\ slash/ nl\n tab\t \u{01} é 😀 \u{2028} \u{7f}"], [:]] {
            XCTAssertEqual(try KintoJSON.data(record: fields), try KintoJSON.data(["data": fields]))
        }
    }

    func testSubRequestsNeverCarryLastModifiedOrID() throws {
        let record = try recordJSON(["id": "x", "last_modified": 99, "v": 1])
        guard case .send(let create) = KintoBatchCoding.prepare(.create(collection: .items, id: "x", record: record)),
              case .send(let update) = KintoBatchCoding.prepare(.update(collection: .keystores, id: "default",
                                                                         record: record, lastModified: 42)),
              case .send(let delete) = KintoBatchCoding.prepare(.delete(collection: .items, id: "x", lastModified: 43))
        else { return XCTFail("expected sendable requests") }

        XCTAssertEqual(create["method"] as? String, "PUT")
        XCTAssertEqual(create["path"] as? String, "/buckets/default/collections/items/records/x")
        XCTAssertEqual(create["headers"] as? [String: String], ["If-None-Match": "*"])
        let createData = (create["body"] as? [String: Any])?["data"] as? [String: Any]
        XCTAssertEqual(createData?.keys.sorted(), ["v"])

        XCTAssertEqual(update["path"] as? String, "/buckets/default/collections/keystores/records/default")
        XCTAssertEqual(update["headers"] as? [String: String], ["If-Match": "\"42\""])
        let updateData = (update["body"] as? [String: Any])?["data"] as? [String: Any]
        XCTAssertEqual(updateData?.keys.sorted(), ["v"])

        XCTAssertEqual(delete["method"] as? String, "DELETE")
        XCTAssertEqual(delete["headers"] as? [String: String], ["If-Match": "\"43\""])
        XCTAssertNil(delete["body"])
    }

    /// A shared bucket's writes clear the record's own `write` (Kinto adds the writer back); a
    /// delete carries no body, and the personal bucket's writes no permissions.
    func testASharedBucketsWritesClearTheRecordsOwnWrite() throws {
        let record = try recordJSON(["v": 1])
        let requests: [KintoWriteRequest] = [.create(collection: .items, id: "x", record: record),
                                             .update(collection: .items, id: "x", record: record, lastModified: 42)]
        for request in requests {
            guard case .send(let shared) = KintoBatchCoding.prepare(request, bucket: "share-b", clearingAuthorPermissions: true),
                  case .send(let personal) = KintoBatchCoding.prepare(request)
            else { return XCTFail("expected sendable requests") }
            let body = shared["body"] as? [String: Any]
            XCTAssertEqual(body?["permissions"] as? [String: [String]], ["write": []], "\(request)")
            XCTAssertEqual((body?["data"] as? [String: Any])?.keys.sorted(), ["v"])
            XCTAssertNil((personal["body"] as? [String: Any])?["permissions"], "\(request)")
        }
        guard case .send(let delete) = KintoBatchCoding.prepare(.delete(collection: .items, id: "x", lastModified: 43),
                                                                 bucket: "share-b", clearingAuthorPermissions: true)
        else { return XCTFail("expected a sendable delete") }
        XCTAssertNil(delete["body"])
    }

    func testInvalidRequestsAreNotSent() {
        guard case .invalid = KintoBatchCoding.prepare(.create(collection: .items, id: "a/b", record: Data("{}".utf8))),
              case .invalid = KintoBatchCoding.prepare(.update(collection: .items, id: "a", record: Data("nope".utf8),
                                                               lastModified: 1))
        else { return XCTFail("expected invalid") }
    }

    func testSubResponsesMapToResults() throws {
        func sub(_ status: Int, _ body: Any?) -> KintoBatchCoding.SubResponse {
            KintoBatchCoding.SubResponse(status: status, headers: KintoHeaders(), body: body)
        }
        let record: [String: Any] = ["id": "a", "last_modified": 5, "v": 1]
        XCTAssertEqual(KintoBatchCoding.result(sub(201, ["data": record])), .accepted(record: try KintoJSON.data(record), lastModified: 5))
        XCTAssertEqual(KintoBatchCoding.result(sub(200, ["data": ["id": "a"]])), .unknown,
                       "applied but without a version: unknown")
        XCTAssertEqual(KintoBatchCoding.result(sub(412, ["details": ["existing": record]])),
                       .preconditionFailed(existing: try KintoJSON.data(record)))
        XCTAssertEqual(KintoBatchCoding.result(sub(412, ["message": "Resource was modified meanwhile"])),
                       .preconditionFailed(existing: nil))
        XCTAssertEqual(KintoBatchCoding.result(sub(400, ["message": "Invalid object id"])),
                       .failed(status: 400, message: "Invalid object id"))
        XCTAssertEqual(KintoBatchCoding.result(sub(404, nil)), .failed(status: 404, message: "HTTP 404"))

        XCTAssertFalse(KintoBatchCoding.isOutcomeUnknown([sub(201, nil), sub(412, nil), sub(404, nil)]))
        XCTAssertTrue(KintoBatchCoding.isOutcomeUnknown([sub(201, nil), sub(409, nil)]))
        XCTAssertTrue(KintoBatchCoding.isOutcomeUnknown([sub(503, nil), sub(201, nil)]))
    }

    func testBatchAnswerMustMatchTheRequests() throws {
        let answer = try JSONSerialization.data(withJSONObject: ["responses": [["status": 201, "body": [:]]]])
        XCTAssertEqual(try KintoBatchCoding.subResponses(answer, expected: 1).map(\.status), [201])
        XCTAssertThrowsError(try KintoBatchCoding.subResponses(answer, expected: 2))
        XCTAssertThrowsError(try KintoBatchCoding.subResponses(Data("[]".utf8), expected: 0))
    }

    func testListingKeepsTheNewestVersionOfEachIDOldestFirst() throws {
        let body = try JSONSerialization.data(withJSONObject: ["data": [
            ["id": "b", "last_modified": 3],
            ["id": "a", "last_modified": 2, "deleted": true],
            ["id": "b", "last_modified": 7, "v": 2],
            ["id": "c", "last_modified": 5],
        ]])
        let records = KintoClient.newestPerID(try KintoClient.listedRecords(body))
        XCTAssertEqual(records.map(\.id), ["a", "c", "b"])
        XCTAssertEqual(records.map(\.lastModified), [2, 5, 7])
        XCTAssertEqual(try jsonObject(records[0].data)["deleted"] as? Bool, true)
        XCTAssertThrowsError(try KintoClient.listedRecords(Data(#"{"data": [{"id": "x"}]}"#.utf8)),
                             "a record without last_modified is malformed")
    }

    func testTenThousandRecordListingKeepsEveryRecordsBytes() throws {
        let blob = String(repeating: "A", count: 500)
        let items: [[String: Any]] = (0..<10_000).map {
            ["id": "item-\($0)", "last_modified": 1_700_000_000_000 + $0, "active": "active",
             "origins": ["0123456789abcdef"], "tags": [], "encrypted": blob]
        }
        let body = try JSONSerialization.data(withJSONObject: ["data": items])
        let records = KintoClient.newestPerID(try KintoClient.listedRecords(body))
        XCTAssertEqual(records.count, 10_000)
        for (index, record) in records.enumerated() {
            let object = try jsonObject(record.data)
            XCTAssertEqual(object["id"] as? String, "item-\(index)")
            XCTAssertEqual(object["encrypted"] as? String, blob)
        }
    }
}
