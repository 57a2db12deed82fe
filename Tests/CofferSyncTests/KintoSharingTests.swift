import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A shared vault's bucket on the real Kinto (architecture §17): who the server lets in, checked
/// with raw requests of each account. What the server grants only keeps strangers out; these
/// tests pin the Kinto behaviour the revocation steps rely on (TOOLCHAIN: an author keeps `write`
/// on what they wrote until the record's permissions are rewritten).
final class KintoSharingTests: XCTestCase {
    var server: TestServer!

    override func setUp() async throws {
        server = try TestServer.require()
    }

    /// The status of a raw request by `credentials` on the server.
    private func status(_ method: String, _ path: String, as credentials: KintoCredentials, body: String? = nil) async throws -> Int {
        var request = URLRequest(url: server.url.appendingPathComponent(path))
        request.httpMethod = method
        let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
        request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// The record ids a listing by `credentials` returns, or nil when it is refused.
    private func listed(_ path: String, as credentials: KintoCredentials) async throws -> [String]? {
        var request = URLRequest(url: server.url.appendingPathComponent(path))
        let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
        request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (object?["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String }.sorted()
    }

    func testOnlyTheGroupsMembersReachTheBucketAndARemovedAuthorLosesWhatItWroteOnceRewritten() async throws {
        let ann = try await server.makeAccount(), bob = try await server.makeAccount()
        let bucket = "share-" + String(UUID().uuidString.lowercased().filter(\.isLetter).prefix(20))
        let annClient = KintoClient(server: server.url, credentials: ann, bucket: bucket)
        let bobClient = KintoClient(server: server.url, credentials: bob, bucket: bucket)
        let created = try await annClient.createSharedBucket(collections: ["items", "roster"], member: ann.user)
        XCTAssertTrue(created)
        let again = try await annClient.createSharedBucket(collections: ["items"], member: ann.user)
        XCTAssertFalse(again, "a bucket is made once")
        let records = "buckets/\(bucket)/collections/items/records"

        // A stranger to the group gets nothing.
        let strangerRead = try await status("GET", records, as: bob)
        XCTAssertEqual(strangerRead, 403)
        let strangerWrite = try await status("PUT", records + "/x", as: bob, body: #"{"data":{"v":1}}"#)
        XCTAssertEqual(strangerWrite, 403)
        let strangerGroup = try await status("PATCH", "buckets/\(bucket)/groups/members", as: bob,
                                             body: #"{"data":{"members":["account:\#(bob.user)"]}}"#)
        XCTAssertEqual(strangerGroup, 403, "a stranger cannot put itself in the group")

        // Added with the group's timestamp; a change from a stale read is refused.
        let (principals, stamp) = try await annClient.members()
        XCTAssertEqual(principals, ["account:\(ann.user)"])
        let added = try await annClient.setMembers(principals + ["account:\(bob.user)"], ifUnchangedSince: stamp)
        XCTAssertTrue(added)
        let stale = try await annClient.setMembers(principals, ifUnchangedSince: stamp)
        XCTAssertFalse(stale, "the group changed since that read")

        let written = try await status("PUT", records + "/by-bob", as: bob, body: #"{"data":{"v":1}}"#)
        XCTAssertEqual(written, 201)
        let annReads = try await status("GET", records + "/by-bob", as: ann)
        XCTAssertEqual(annReads, 200)
        let bobChangesTheGroup = try await status("GET", "buckets/\(bucket)/groups/members", as: bob)
        XCTAssertEqual(bobChangesTheGroup, 200, "a member reads (and may change) the group: nobody owns it")

        // Out of the group, Bob still holds what he wrote (Kinto made him its writer)...
        let (now, nowStamp) = try await annClient.members()
        let removed = try await annClient.setMembers(now.filter { $0 != "account:\(bob.user)" }, ifUnchangedSince: nowStamp)
        XCTAssertTrue(removed)
        let keptWrite = try await status("GET", records + "/by-bob", as: bob)
        XCTAssertEqual(keptWrite, 200, "Kinto's author permission outlives the group")
        _ = try await status("PUT", records + "/by-ann", as: ann, body: #"{"data":{"v":1}}"#)
        let listing = try await listed(records, as: bob)
        XCTAssertEqual(listing, ["by-bob"], "a listing shows him what he wrote, nothing else")
        // ...until the record's permissions are rewritten, as a revocation does for every record.
        let cleared = try await annClient.clearPermissions(collection: "items", id: "by-bob")
        XCTAssertTrue(cleared)
        let afterClear = try await status("GET", records + "/by-bob", as: bob)
        XCTAssertEqual(afterClear, 403)
        let listingAfter = try await listed(records, as: bob)
        XCTAssertEqual(listingAfter ?? [], [], "nothing is listed to him any more")
        let overwrite = try await status("PUT", records + "/by-bob", as: bob, body: #"{"data":{"v":2}}"#)
        XCTAssertEqual(overwrite, 403)
        let stillAnns = try await status("GET", records + "/by-bob", as: ann)
        XCTAssertEqual(stillAnns, 200, "the members keep it")
        let gone = try await annClient.clearPermissions(collection: "items", id: "never-written")
        XCTAssertFalse(gone)
    }

    /// What a permissions rewrite leaves (Kinto 26.5), which `SharedPermissions` is built on:
    /// the creator is a writer of the bucket, its group and collections; a list is shown only to
    /// a principal its `write` names; whoever rewrites a
    /// permission is put back on its `write`, even a member the group already lets write; and a
    /// member who names only their own account on the bucket's `write` takes it from everyone,
    /// so that a restore by anyone else can only say so.
    func testWhoeverRewritesPermissionsStaysOnTheirWriteAndOneMemberCanTakeTheBucket() async throws {
        let ann = try await server.makeAccount(), bob = try await server.makeAccount()
        let bucket = "share-" + String(UUID().uuidString.lowercased().filter(\.isLetter).prefix(20))
        let annClient = KintoClient(server: server.url, credentials: ann, bucket: bucket)
        let bobClient = KintoClient(server: server.url, credentials: bob, bucket: bucket)
        let group = annClient.membersPrincipal
        try await annClient.createSharedBucket(collections: ["items"], member: ann.user)
        let created = try await annClient.sharedPermissions()
        let creatorAndGroup: Set<String> = [group, "account:\(ann.user)"]
        XCTAssertEqual(created.bucket.mapValues { Set($0) }, ["write": creatorAndGroup], "Kinto adds the creator")
        XCTAssertEqual(created.collections["items"]?.mapValues { Set($0) }, ["write": creatorAndGroup])
        XCTAssertEqual(created.groups["members"]?.mapValues { Set($0) }, ["write": creatorAndGroup])
        let (principals, stamp) = try await annClient.members()
        _ = try await annClient.setMembers(principals + ["account:\(bob.user)"], ifUnchangedSince: stamp)

        // Bob writes the group alone on each list: he is put back on every one, though the group lets him write.
        try await bobClient.setBucketPermissions(write: [group])
        try await bobClient.setCollectionPermissions("items", write: [group])
        try await bobClient.setGroupPermissions(KintoClient.membersGroup, write: [group])
        let rewritten = try await bobClient.sharedPermissions()
        let bobAndGroup: Set<String> = [group, "account:\(bob.user)"]
        XCTAssertEqual(rewritten.bucket.filter { !$0.value.isEmpty }.mapValues { Set($0) }, ["write": bobAndGroup])
        XCTAssertEqual(rewritten.collections["items"]?.filter { !$0.value.isEmpty }.mapValues { Set($0) }, ["write": bobAndGroup])
        XCTAssertEqual(rewritten.groups["members"]?.filter { !$0.value.isEmpty }.mapValues { Set($0) }, ["write": bobAndGroup])
        // A list that does not name this account's principals is shown to it as `{}`.
        let stranger = try await server.makeAccount()
        let strangerItems = try await status("PATCH", "buckets/\(bucket)/collections/items", as: bob,
                                             body: #"{"permissions":{"write":["account:\#(stranger.user)"]}}"#)
        XCTAssertEqual(strangerItems, 200)
        let hidden = try await annClient.sharedPermissions()
        XCTAssertEqual(hidden.collections["items"], [:], "Ann writes through the bucket, yet sees no list")
        try await bobClient.setCollectionPermissions("items", write: [group])
        let restored = try await SharedPermissions.restore(with: bobClient, allowing: [])
        XCTAssertEqual(restored, SharedPermissions.Outcome(), "what is left is the writer's own, which no rewrite takes off")

        // Bob names only himself: Ann, still in the group, is refused the bucket (the group on the
        // collection's own `write` still lets her sync it), and her restore says so.
        let taken = try await status("PATCH", "buckets/\(bucket)", as: bob, body: #"{"permissions":{"write":["account:\#(bob.user)"]}}"#)
        XCTAssertEqual(taken, 200)
        let annRefused = try await status("GET", "buckets/\(bucket)", as: ann)
        XCTAssertEqual(annRefused, 403)
        let annReads = try await status("GET", "buckets/\(bucket)/collections/items/records", as: ann)
        XCTAssertEqual(annReads, 200)
        let annRestore = try await SharedPermissions.restore(with: annClient, allowing: ["account:\(bob.user)"])
        XCTAssertEqual(annRestore.unresolved, [SharedPermissions.refusedSentence])
        XCTAssertEqual(annRestore.fixed, [])
    }
}
