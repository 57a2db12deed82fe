import CofferCore
import Foundation

/// The account's own bucket by its id (architecture §4, "Buckets"). `/buckets/default/…` makes
/// Kinto's `default_bucket` plugin compute the id and check, on every request, that the bucket and
/// collection exist: half of the server's work for an idle sync's 304. A vault that learned the id
/// names the bucket itself, as a shared vault always did.
extension KintoClient {
    /// The id of the account's own bucket, after making sure each of `collections` exists in it
    /// (by its id, a collection is not made on first use as under `default`). Nil when the server
    /// has no `default_bucket` plugin to name one.
    ///
    /// - Throws: `KintoError` for a transport failure or an answer that is not Kinto's.
    func accountBucketID(making collections: [String]) async throws -> String? {
        let root = try await fetchRoot()
        guard let user = root["user"] as? [String: Any], let id = user["bucket"] as? String else { return nil }
        // A stranger's bytes that go into every later request's path.
        guard id.utf8.count <= 64, KintoRecordID.isValid(id) else {
            throw KintoError.network(message: "the server named the account's bucket with an id Kinto does not make")
        }
        let requests: [[String: Any]] = collections.map { ["path": "/buckets/default/collections/\($0)"] }
        let body = try KintoJSON.data(["defaults": ["method": "PUT", "headers": ["If-None-Match": "*"]], "requests": requests])
        let response = try await perform("POST", Self.endpoint(server, "/batch"), body: body)
        guard response.status == 200 else { throw Self.unexpected(response, doing: "making the account's collections") }
        let answers = try KintoBatchCoding.subResponses(response.body, expected: requests.count)
        // 201: made now; 412: it was there.
        guard answers.allSatisfy({ [200, 201, 412].contains($0.status) }) else {
            throw KintoError.network(message: "the server did not make the account's collections")
        }
        return id
    }
}
