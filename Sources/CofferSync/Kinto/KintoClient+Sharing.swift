import CofferCore
import Foundation

/// The server side of a shared vault (architecture §17): a bucket of its own whose `write` goes
/// to its group `members`, so any member may change the group and no account owns the data. The
/// server's permissions only keep strangers out; who is a member is the signed roster's to say.
extension KintoClient {
    /// The group whose members may read and write the bucket.
    public static let membersGroup = "members"

    /// The principal Kinto knows the members' group by.
    public nonisolated var membersPrincipal: String { "/buckets/\(bucket)/groups/\(Self.membersGroup)" }

    /// Creates this client's bucket (once: `false` when it exists already) with `write` for the
    /// members' group, the group holding this account, and `collections` (only the `default`
    /// bucket makes collections on the first write), each with `write` for the group too. Kinto
    /// adds this account to every one of them: the first revocation takes it off.
    ///
    /// - Throws: `KintoError.unauthorized` when the server lets no account create buckets
    ///   (`kinto.bucket_create_principals`), or a transport error.
    @discardableResult
    public func createSharedBucket(collections: [String], member account: String) async throws -> Bool {
        let bucketURL = try Self.endpoint(server, "/buckets/\(bucket)")
        let body = try KintoJSON.data(["data": [String: Any](), "permissions": ["write": [membersPrincipal]]])
        let created = try await perform("PUT", bucketURL, headers: ["If-None-Match": "*"], body: body)
        switch created.status {
        case 200, 201: break
        case 412: return false
        default: throw Self.unexpected(created, doing: "creating the shared bucket")
        }
        let group = try Self.endpoint(server, "/buckets/\(bucket)/groups/\(Self.membersGroup)")
        // The group on each object's own `write` lets every member read its permissions (Kinto
        // shows them only to a principal that list names): `SharedPermissions` checks them.
        let members = try await perform("PUT", group, body: try KintoJSON.data(["data": ["members": ["account:\(account)"]],
                                                                                "permissions": ["write": [membersPrincipal]]]))
        guard [200, 201].contains(members.status) else { throw Self.unexpected(members, doing: "creating the members' group") }
        for collection in collections {
            let url = try Self.endpoint(server, "/buckets/\(bucket)/collections/\(collection)")
            let made = try await perform("PUT", url, headers: ["If-None-Match": "*"],
                                         body: try KintoJSON.data(["data": [String: Any](), "permissions": ["write": [membersPrincipal]]]))
            guard [200, 201, 412].contains(made.status) else { throw Self.unexpected(made, doing: "creating the \(collection) collection") }
        }
        return true
    }

    /// The accounts in the members' group (`account:NAME` principals, as Kinto holds them) and
    /// the group's timestamp, for `setMembers`.
    public func members() async throws -> (principals: [String], lastModified: Int64) {
        let url = try Self.endpoint(server, "/buckets/\(bucket)/groups/\(Self.membersGroup)")
        let response = try await perform("GET", url)
        guard response.status == 200,
              let data = try KintoJSON.object(response.body, what: "members' group")["data"] as? [String: Any],
              let principals = data["members"] as? [String], let lastModified = KintoJSON.int64(data["last_modified"])
        else { throw Self.unexpected(response, doing: "reading the members' group") }
        return (principals, lastModified)
    }

    /// Replaces the group's members, only if the group is as it was at `lastModified` (Kinto
    /// replaces the array whole, so two members changing it at once must not both win); `false`
    /// when it changed meanwhile: read it again.
    public func setMembers(_ principals: [String], ifUnchangedSince lastModified: Int64) async throws -> Bool {
        let url = try Self.endpoint(server, "/buckets/\(bucket)/groups/\(Self.membersGroup)")
        let response = try await perform("PATCH", url, headers: ["If-Match": "\"\(lastModified)\""],
                                          body: try KintoJSON.data(["data": ["members": principals]]))
        switch response.status {
        case 200: return true
        case 412: return false
        default: throw Self.unexpected(response, doing: "changing the members' group")
        }
    }

    /// Takes every account's own `write` off a record: Kinto gives each author `write` on what
    /// they wrote, which a removed member would otherwise keep. The group's access, on the bucket,
    /// stays. `false` when the record is gone.
    public func clearPermissions(collection: String, id: String) async throws -> Bool {
        let url = try Self.endpoint(server, "/buckets/\(bucket)/collections/\(collection)/records/\(id)")
        let response = try await perform("PATCH", url, body: try KintoJSON.data(["permissions": ["write": [String]()]]))
        switch response.status {
        case 200: return true
        case 404: return false
        default: throw Self.unexpected(response, doing: "rewriting a \(collection) record's permissions")
        }
    }

    /// Takes every account's own `write` off the members' group, leaving the group's own (which
    /// lets every member read the group's permissions): whoever changes the group gets `write` on
    /// it from Kinto, and with it could put themselves back after their removal.
    public func clearGroupPermissions() async throws {
        try await setGroupPermissions(Self.membersGroup, write: [membersPrincipal])
    }

    /// `clearPermissions` for every record of `collection`, in batches of the server's size: a
    /// revocation rewrites every record a removed member could have written. The ids that could
    /// not be rewritten (neither 200 nor 404).
    public func clearPermissions(collection: String, ids: [String]) async throws -> [String] {
        let size = max(1, try await serverLimits().batchMaxRequests)
        var failed: [String] = []
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + size, ids.count)])
            let requests: [[String: Any]] = chunk.map { id in
                ["method": "PATCH", "path": "/buckets/\(bucket)/collections/\(collection)/records/\(id)",
                 "body": ["permissions": ["write": [String]()]]]
            }
            let response = try await perform("POST", Self.endpoint(server, "/batch"), body: try KintoJSON.data(["requests": requests]))
            guard response.status == 200 else { throw Self.unexpected(response, doing: "rewriting permissions") }
            let answers = try KintoBatchCoding.subResponses(response.body, expected: requests.count)
            if answers.contains(where: { $0.status == 401 }) { throw KintoError.unauthorized }
            for (id, answer) in zip(chunk, answers) where ![200, 404].contains(answer.status) { failed.append(id) }
            start += chunk.count
        }
        return failed
    }

    /// The ids of every live record of `collection` (without their data).
    public func recordIDs(collection: String) async throws -> [String] {
        guard case .changes(let records, _) = try await listChanges(named: collection, since: nil, pageSize: nil, fields: ["id"])
        else { return [] }
        return records.compactMap { data in
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["deleted"] as? Bool != true
            else { return nil }
            return object["id"] as? String
        }
    }
}
