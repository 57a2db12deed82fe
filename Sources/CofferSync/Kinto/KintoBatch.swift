import CofferCore
import Foundation

/// One write for `KintoClient.batch`, with the precondition that makes it safe.
///
/// `record` is the record's JSON object. Its `last_modified` and `id` keys are never sent (the
/// server keeps a sent `last_modified`, and `_since` may then never return the record; the id
/// comes from the path), so the caller may pass a record as stored.
public enum KintoWriteRequest: Sendable, Equatable {
    /// Creates the record; fails with `preconditionFailed` if the id exists (`If-None-Match: *`).
    case create(collection: CollectionName, id: String, record: Data)
    /// Replaces the record if the server still holds version `lastModified` (`If-Match`).
    case update(collection: CollectionName, id: String, record: Data, lastModified: Int64)
    /// Deletes the record if the server still holds version `lastModified` (`If-Match`),
    /// leaving a tombstone that `_since` listings return.
    case delete(collection: CollectionName, id: String, lastModified: Int64)

    public var collection: CollectionName {
        switch self {
        case .create(let collection, _, _), .update(let collection, _, _, _), .delete(let collection, _, _):
            return collection
        }
    }

    public var id: String {
        switch self {
        case .create(_, let id, _), .update(_, let id, _, _), .delete(_, let id, _):
            return id
        }
    }
}

/// What the server did with one `KintoWriteRequest`.
public enum KintoWriteResult: Sendable, Equatable {
    /// Applied. `record` is the server's JSON object, with the new `last_modified` (a tombstone
    /// `{id, last_modified, deleted: true}` for a delete), read once here.
    case accepted(record: Data, lastModified: Int64)
    /// The precondition failed (412): the record changed on the server, or exists already for a
    /// create. `existing` is the server's current record when it has one; nothing was written.
    case preconditionFailed(existing: Data?)
    /// Refused (any other status; `status` 0 when the request was never sent because it was
    /// invalid). Nothing was written.
    case failed(status: Int, message: String)
    /// Nobody knows whether it was applied: the batch held a 409 or 5xx answer (on PostgreSQL
    /// earlier acknowledgements in it may have been rolled back), its answer was lost, or it was
    /// never sent after an earlier chunk failed. Fetch before trusting the local state.
    case unknown
}

/// A Kinto record id: `^[a-zA-Z0-9][a-zA-Z0-9_-]*$`.
enum KintoRecordID {
    static func isValid(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, isAlphanumeric(first) else { return false }
        return id.unicodeScalars.allSatisfy { isAlphanumeric($0) || $0 == "_" || $0 == "-" }
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": return true
        default: return false
        }
    }
}

/// Builds one `POST /batch` body and reads its answer.
package enum KintoBatchCoding {
    /// A sub-request ready to send, or the reason it cannot be.
    enum Prepared {
        case send([String: Any])
        case invalid(String)
    }

    /// `clearingAuthorPermissions` (a shared bucket's writes, architecture §17): the record goes
    /// up with `"permissions": {"write": []}`. Kinto replaces a record's permissions with those
    /// sent and adds the writer back, so only the last writer keeps a `write` of their own (the
    /// members' group has the bucket's): a removed person's is gone from every record sent after
    /// their removal, without a request of its own.
    static func prepare(_ request: KintoWriteRequest, bucket: String = "default",
                        clearingAuthorPermissions: Bool = false) -> Prepared {
        guard KintoRecordID.isValid(request.id) else {
            return .invalid("invalid record id \u{201C}\(request.id)\u{201D}")
        }
        let path = "/buckets/\(bucket)/collections/\(request.collection.rawValue)/records/\(request.id)"
        switch request {
        case .create(_, _, let record):
            guard var body = body(record) else { return .invalid("the record is not a JSON object") }
            if clearingAuthorPermissions { body["permissions"] = ["write": [String]()] }
            return .send(["method": "PUT", "path": path, "headers": ["If-None-Match": "*"], "body": body])
        case .update(_, _, let record, let lastModified):
            guard var body = body(record) else { return .invalid("the record is not a JSON object") }
            if clearingAuthorPermissions { body["permissions"] = ["write": [String]()] }
            return .send(["method": "PUT", "path": path, "headers": ["If-Match": "\"\(lastModified)\""],
                          "body": body])
        case .delete(_, _, let lastModified):
            return .send(["method": "DELETE", "path": path, "headers": ["If-Match": "\"\(lastModified)\""]])
        }
    }

    /// `{"data": record}` without the keys the server owns.
    private static func body(_ record: Data) -> [String: Any]? {
        guard var object = (try? JSONSerialization.jsonObject(with: record, options: [])) as? [String: Any] else {
            return nil
        }
        object.removeValue(forKey: "last_modified")
        object.removeValue(forKey: "id")
        return ["data": object]
    }

    /// One parsed sub-response.
    package struct SubResponse {
        package var status: Int
        package var headers: KintoHeaders
        package var body: Any?
    }

    package static func subResponses(_ data: Data, expected: Int) throws -> [SubResponse] {
        let object = try KintoJSON.object(data, what: "batch answer")
        guard let responses = object["responses"] as? [Any], responses.count == expected else {
            throw KintoError.network(message: "the batch answer does not match the requests")
        }
        return try responses.map { item in
            guard let response = item as? [String: Any],
                  let status = KintoJSON.int64(response["status"]).map(Int.init) else {
                throw KintoError.network(message: "malformed entry in the batch answer")
            }
            return SubResponse(status: status, headers: KintoHeaders(json: response["headers"]),
                               body: response["body"])
        }
    }

    /// True when the whole chunk's outcome is unknown (architecture §4: on PostgreSQL a 409
    /// or 5xx can roll back earlier acknowledgements of the same batch).
    package static func isOutcomeUnknown(_ responses: [SubResponse]) -> Bool {
        responses.contains { $0.status == 409 || $0.status >= 500 }
    }

    package static func result(_ response: SubResponse) -> KintoWriteResult {
        let body = response.body as? [String: Any]
        switch response.status {
        case 200..<300:
            guard let record = body?["data"] as? [String: Any],
                  let lastModified = KintoJSON.int64(record["last_modified"]),
                  let data = try? KintoJSON.data(record) else {
                // Applied, but we cannot tell the new version: the next fetch will.
                return .unknown
            }
            return .accepted(record: data, lastModified: lastModified)
        case 412:
            let details = body?["details"] as? [String: Any]
            let existing = (details?["existing"] as? [String: Any]).flatMap { try? KintoJSON.data($0) }
            return .preconditionFailed(existing: existing)
        default:
            return .failed(status: response.status,
                           message: KintoJSON.errorMessage(body) ?? "HTTP \(response.status)")
        }
    }
}
