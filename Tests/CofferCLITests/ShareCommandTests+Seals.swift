import CofferCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A new epoch's key sealed to a member, served wrong by the server (issue 41, finding 5): the
/// unlock refuses it in one sentence, the seal is forgotten, and once the server serves the right
/// one the next sync fetches it and the unlock takes it. Before, the bad seal was kept and every
/// later unlock failed for good.
extension ShareCommandTests {
    func testABadSealIsFetchedAgainAndAGoodOneEndsIt() throws {
        let (ann, bob, cat) = try household()
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        assertOK(try ann.inShared("home", ["share", "revoke", "Cat"]))
        _ = cat

        // The server swaps the bytes of every seal of epoch 2 for another seal's bytes, reversed.
        let listing = try bucketAnswer(bucket, path: "/collections/seals/records", as: ann.account)
        let seals = ((try JSONSerialization.jsonObject(with: Data(listing.body.utf8)) as? [String: Any])?["data"] as? [[String: Any]] ?? [])
            .filter { ($0["id"] as? String)?.hasPrefix("2-") == true }
        XCTAssertFalse(seals.isEmpty, listing.body)
        for seal in seals {
            var bad = seal
            let bytes = Data(base64Encoded: try XCTUnwrap(seal["seal"] as? String)) ?? Data()
            bad["seal"] = Data(bytes.reversed()).base64EncodedString()
            try putSeal(bad, in: bucket, as: ann)
        }

        assertOK(try bob.inShared("home", ["sync"]))
        let refused = try bob.inShared("home", ["sync", "--unlock"])
        XCTAssertNotEqual(refused.status, 0, refused.summary)
        XCTAssertTrue(refused.err.contains("fetched again at the next sync"), refused.summary)
        XCTAssertNil(Self.meta(bob.sharedPath("home"), "share_pending_seal"), "the bad seal is not kept")

        // The server behaves again: the next sync fetches the seal, the unlock takes it.
        for seal in seals { try putSeal(seal, in: bucket, as: ann) }
        assertOK(try bob.inShared("home", ["sync"]))
        XCTAssertNotNil(Self.meta(bob.sharedPath("home"), "share_pending_seal"))
        let first = try bob.inShared("home", ["sync", "--unlock"])
        XCTAssertTrue([0, 12].contains(first.status), first.summary)
        assertOK(try bob.inShared("home", ["sync", "--unlock"]))
        XCTAssertEqual(Self.meta(bob.sharedPath("home"), "share_epoch"), "2")
        XCTAssertEqual(try bob.titles(in: "home"), ["Cat's bike", "Door"])
    }

    private func putSeal(_ record: [String: Any], in bucket: String, as member: Member) throws {
        var fields = record
        let id = try XCTUnwrap(fields.removeValue(forKey: "id") as? String)
        fields["last_modified"] = nil
        var request = URLRequest(url: server.appendingPathComponent("buckets/\(bucket)/collections/seals/records/\(id)"))
        request.httpMethod = "PUT"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["data": fields])
        let (body, status) = try SyncCommandServer.send(request, account: member.account)
        XCTAssertTrue((200..<300).contains(status), String(decoding: body, as: UTF8.self))
    }
}
