import Foundation

/// The permissions Kinto keeps on one object: `read`, `write` and `<child>:create`, each a list
/// of principals (`account:NAME`, a group's path, `system.Authenticated`…).
public typealias KintoPermissions = [String: [String]]

/// Every permission list of a shared bucket, read at one moment: the bucket's, each collection's
/// and each group's, by id. Records are not in it: their authors' `write` is cleared apart
/// (`SharedRoster.clearAuthorPermissions`).
public struct SharedBucketPermissions: Sendable, Equatable {
    public var bucket: KintoPermissions
    public var collections: [String: KintoPermissions]
    public var groups: [String: KintoPermissions]

    public init(bucket: KintoPermissions, collections: [String: KintoPermissions], groups: [String: KintoPermissions]) {
        self.bucket = bucket
        self.collections = collections
        self.groups = groups
    }
}

/// Reading and replacing the permissions of a shared bucket, its collections and groups
/// (architecture §17, "The server's permissions"). Kinto 26.5 adds the writer's own account to
/// `write` of whatever it writes, a permissions PATCH included: what is set here always comes
/// back with this client's account on `write`.
extension KintoClient {
    /// The kinds of permission each object has; a PATCH naming every one replaces them all and
    /// leaves the object's data alone (a PUT would replace the data too).
    static let bucketPermissionKinds = ["read", "write", "collection:create", "group:create"]
    static let collectionPermissionKinds = ["read", "write", "record:create"]
    static let groupPermissionKinds = ["read", "write"]

    /// Every permission list of this client's bucket (one GET for the bucket, one per listing,
    /// one per collection and group).
    ///
    /// Kinto shows an object's permissions only to a principal its own `write` names (inherited
    /// access is not enough: a member reads `{}`), so a list this account cannot see comes back
    /// empty. Collections and groups are listed through the bucket's grant.
    ///
    /// - Throws: `KintoError.unauthorized` when this account may not read the bucket (Kinto
    ///   answers 403 even to a member once the bucket's `write` no longer names the group).
    public func sharedPermissions() async throws -> SharedBucketPermissions {
        let bucketPath = "/buckets/\(bucket)"
        let bucketPermissions = try await permissions(at: bucketPath)
        var collections: [String: KintoPermissions] = [:]
        for id in try await childIDs(of: bucketPath + "/collections") {
            collections[id] = try await permissions(at: bucketPath + "/collections/\(id)")
        }
        var groups: [String: KintoPermissions] = [:]
        for id in try await childIDs(of: bucketPath + "/groups") {
            groups[id] = try await permissions(at: bucketPath + "/groups/\(id)")
        }
        return SharedBucketPermissions(bucket: bucketPermissions, collections: collections, groups: groups)
    }

    /// Replaces the bucket's permissions with `write` for `writers` and nothing else.
    public func setBucketPermissions(write writers: [String]) async throws {
        try await replacePermissions(at: "/buckets/\(bucket)", kinds: Self.bucketPermissionKinds, write: writers)
    }

    /// Replaces a collection's permissions with `write` for `writers` and nothing else.
    public func setCollectionPermissions(_ id: String, write writers: [String]) async throws {
        try await replacePermissions(at: "/buckets/\(bucket)/collections/\(id)", kinds: Self.collectionPermissionKinds, write: writers)
    }

    /// Replaces a group's permissions with `write` for `writers` and nothing else (its members stay).
    public func setGroupPermissions(_ id: String, write writers: [String]) async throws {
        try await replacePermissions(at: "/buckets/\(bucket)/groups/\(id)", kinds: Self.groupPermissionKinds, write: writers)
    }

    /// Deletes a group (a 404: gone already).
    public func deleteGroup(_ id: String) async throws {
        let response = try await perform("DELETE", Self.endpoint(server, "/buckets/\(bucket)/groups/\(id)"))
        guard [200, 404].contains(response.status) else { throw Self.unexpected(response, doing: "deleting the group \(id)") }
    }

    private func permissions(at path: String) async throws -> KintoPermissions {
        let response = try await perform("GET", Self.endpoint(server, path))
        guard response.status == 200 else { throw Self.unexpected(response, doing: "reading the permissions of \(path)") }
        let object = try KintoJSON.object(response.body, what: "permissions of \(path)")
        return (object["permissions"] as? [String: [String]]) ?? [:]
    }

    /// The ids a listing of collections or groups returns (the first page: a shared bucket holds
    /// a handful of each, and Kinto's page is 10,000 by default).
    private func childIDs(of path: String) async throws -> [String] {
        let response = try await perform("GET", Self.endpoint(server, path))
        guard response.status == 200 else { throw Self.unexpected(response, doing: "listing \(path)") }
        let data = try KintoJSON.object(response.body, what: "listing of \(path)")["data"] as? [[String: Any]] ?? []
        // Only ids Kinto itself accepts go into a path.
        return data.compactMap { $0["id"] as? String }.filter { $0.range(of: "^[a-zA-Z0-9][a-zA-Z0-9_-]*$", options: .regularExpression) != nil }.sorted()
    }

    private func replacePermissions(at path: String, kinds: [String], write writers: [String]) async throws {
        var permissions: [String: [String]] = [:]
        for kind in kinds { permissions[kind] = kind == "write" ? writers : [] }
        let response = try await perform("PATCH", Self.endpoint(server, path), body: try KintoJSON.data(["permissions": permissions]))
        guard response.status == 200 else { throw Self.unexpected(response, doing: "rewriting the permissions of \(path)") }
    }
}
