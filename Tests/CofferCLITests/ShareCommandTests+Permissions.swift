import CofferCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The server's permissions follow the roster (issue 42, architecture §17): a revocation takes
/// the bucket's creator and whatever a member granted themselves off every list, reads them back,
/// and the server then refuses the person everywhere. What it cannot undo (a member who took the
/// bucket's `write` for themselves alone) it says.
extension ShareCommandTests {
    /// Every path a removed person must be refused on, records and groups included.
    private func everyPath(in bucket: String, as member: Member) throws -> [String] {
        var paths = ["", "/collections", "/groups", "/groups/members"]
        for collection in ["items", "keystores", "attachments", "roster", "seals"] {
            paths += ["/collections/\(collection)", "/collections/\(collection)/records"]
            let listing = try bucketAnswer(bucket, path: "/collections/\(collection)/records", as: member.account)
            XCTAssertEqual(listing.status, 200, listing.body)
            let records = (try JSONSerialization.jsonObject(with: Data(listing.body.utf8)) as? [String: Any])?["data"] as? [[String: Any]] ?? []
            paths += records.compactMap { $0["id"] as? String }.map { "/collections/\(collection)/records/\($0)" }
        }
        return paths
    }

    /// A raw write by `member`'s account on the bucket; its status.
    @discardableResult
    private func write(_ method: String, _ bucket: String, _ path: String, _ body: String, as member: Member) throws -> Int {
        var request = URLRequest(url: server.appendingPathComponent("buckets/\(bucket)\(path)"))
        request.httpMethod = method
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return try SyncCommandServer.send(request, account: member.account).1
    }

    /// The permissions of `path`, read with `member`'s account.
    private func permissions(_ bucket: String, _ path: String = "", as member: Member) throws -> [String: [String]] {
        let answer = try bucketAnswer(bucket, path: path, as: member.account)
        XCTAssertEqual(answer.status, 200, "\(path): \(answer.body)")
        return (try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["permissions"] as? [String: [String]] ?? [:]
    }

    /// After a revocation by `revoker`: the bucket's, each collection's and the group's `write`
    /// are the members' group and the revoker's own account (Kinto puts the writer back), no other
    /// list names anyone, and `members` is the only group.
    private func assertOnlyTheRevokerIsNamed(_ bucket: String, revoker: Member, file: StaticString = #filePath, line: UInt = #line) throws {
        let own = "account:\(revoker.account.user)"
        let group = "/buckets/\(bucket)/groups/members"
        let collections = try bucketAnswer(bucket, path: "/collections", as: revoker.account).body
        let ids = ((try JSONSerialization.jsonObject(with: Data(collections.utf8)) as? [String: Any])?["data"] as? [[String: Any]] ?? [])
            .compactMap { $0["id"] as? String }
        XCTAssertTrue(Set(["items", "roster", "seals"]).isSubset(of: Set(ids)), collections, file: file, line: line)
        for path in [""] + ids.map({ "/collections/\($0)" }) + ["/groups/members"] {
            let named = try permissions(bucket, path, as: revoker).filter { !$0.value.isEmpty }.mapValues { Set($0) }
            XCTAssertEqual(named, ["write": [group, own]], "\(path)", file: file, line: line)
        }
        let groups = try bucketAnswer(bucket, path: "/groups", as: revoker.account).body
        let groupIDs = ((try JSONSerialization.jsonObject(with: Data(groups.utf8)) as? [String: Any])?["data"] as? [[String: Any]] ?? [])
            .compactMap { $0["id"] as? String }
        XCTAssertEqual(groupIDs, ["members"], file: file, line: line)
    }

    func testTheCreatorRevokedByAnotherMemberIsRefusedEverywhereAndCannotComeBack() throws {
        let (ann, bob, cat) = try household()
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        // Kinto made the creator a writer of the bucket, the group and every collection.
        XCTAssertTrue(try permissions(bucket, as: ann)["write"]?.contains("account:\(ann.account.user)") == true)
        let paths = try everyPath(in: bucket, as: ann)

        let revoked = try bob.inShared("home", ["share", "revoke", "Ann"])
        assertOK(revoked)
        XCTAssertFalse(revoked.err.contains("Warning"), revoked.summary)
        try assertOnlyTheRevokerIsNamed(bucket, revoker: bob)
        for path in paths {
            let status = try bucketStatus(bucket, path: path, as: ann.account)
            XCTAssertTrue([401, 403].contains(status), "\(path): \(status)")
        }
        let comesBack = try write("PATCH", bucket, "/groups/members",
                                  #"{"data":{"members":["account:\#(ann.account.user)","account:\#(bob.account.user)","account:\#(cat.account.user)"]}}"#,
                                  as: ann)
        XCTAssertEqual(comesBack, 403, "the creator puts themselves back in the group")
        let takesBucket = try write("PATCH", bucket, "", #"{"permissions":{"read":["account:\#(ann.account.user)"]}}"#, as: ann)
        XCTAssertEqual(takesBucket, 403)
        assertExit(try ann.inShared("home", ["sync"]), 13)
        // Bob and Cat go on.
        assertOK(try cat.inShared("home", ["sync"]))
        assertOK(try bob.inShared("home", ["sync"]))
    }

    func testWhatAMemberGrantedThemselvesIsUndoneByTheirRevocation() throws {
        let (ann, bob, cat) = try household()
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        let own = "account:\(cat.account.user)"
        // While a member, Cat prepares: read and creation rights on the bucket, herself alone on
        // the items' write, read on the roster and the group, a group and a collection of her own.
        XCTAssertEqual(try write("PATCH", bucket, "", #"{"permissions":{"read":["\#(own)"],"group:create":["\#(own)"],"collection:create":["\#(own)"]}}"#, as: cat), 200)
        XCTAssertEqual(try write("PATCH", bucket, "/collections/items", #"{"permissions":{"write":["\#(own)"]}}"#, as: cat), 200)
        XCTAssertEqual(try write("PATCH", bucket, "/collections/roster", #"{"permissions":{"read":["\#(own)"]}}"#, as: cat), 200)
        XCTAssertEqual(try write("PATCH", bucket, "/groups/members", #"{"permissions":{"read":["\#(own)"]}}"#, as: cat), 200)
        XCTAssertEqual(try write("PUT", bucket, "/groups/mine", #"{"data":{"members":["\#(own)"]}}"#, as: cat), 201)
        XCTAssertEqual(try write("PUT", bucket, "/collections/mine", #"{"data":{}}"#, as: cat), 201)
        let paths = try everyPath(in: bucket, as: cat) + ["/collections/mine", "/groups/mine"]

        let revoked = try ann.inShared("home", ["share", "revoke", "Cat"])
        assertOK(revoked)
        XCTAssertFalse(revoked.err.contains("Warning"), revoked.summary)
        try assertOnlyTheRevokerIsNamed(bucket, revoker: ann)
        for path in paths {
            XCTAssertTrue([401, 403, 404].contains(try bucketStatus(bucket, path: path, as: cat.account)), path)
        }
        XCTAssertEqual(try bucketStatus(bucket, path: "/groups/mine", as: ann.account), 404, "her group is gone")
        XCTAssertEqual(try write("PUT", bucket, "/groups/again", #"{"data":{"members":["\#(own)"]}}"#, as: cat), 403)
        // Every remaining member syncs.
        assertOK(try bob.inShared("home", ["sync", "--unlock"]))
        assertOK(try ann.inShared("home", ["sync"]))
        assertOK(try bob.inShared("home", ["sync"]))
        XCTAssertEqual(try bob.titles(in: "home"), ["Cat's bike", "Door"])
    }

    /// What no revocation can undo (Kinto 26.5): a member who replaced the bucket's `write` with
    /// their own account alone holds the bucket, and the revoker cannot even read its permissions;
    /// the revocation says so instead of claiming success. The others still sync, through the
    /// group on each collection's own `write`.
    func testABucketAMemberTookForThemselvesIsReportedNotClaimedRepaired() throws {
        let (ann, bob, cat) = try household()
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        XCTAssertEqual(try write("PATCH", bucket, "", #"{"permissions":{"write":["account:\#(cat.account.user)"]}}"#, as: cat), 200)
        XCTAssertEqual(try bucketStatus(bucket, as: bob.account), 403)
        assertOK(try bob.inShared("home", ["sync"]))

        let revoked = try ann.inShared("home", ["share", "revoke", "Cat"])
        assertOK(revoked)
        XCTAssertTrue(revoked.err.contains("Warning: on the server, the server no longer lets this account read the bucket's permissions"),
                      revoked.summary)
        XCTAssertEqual(try bucketStatus(bucket, path: "/collections/items/records", as: cat.account), 200,
                       "Kinto keeps her the bucket: nobody else may change it")
        let bobSyncs = try bob.inShared("home", ["sync", "--unlock"])
        XCTAssertEqual(bobSyncs.status, 0, bobSyncs.summary + bobSyncs.err)
    }
}
