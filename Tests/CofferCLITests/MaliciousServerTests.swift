import CofferTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Issue 41, finding 1, with the built binary and the real Kinto: the server, writing with the
/// account's own credentials, puts a garbage keystore over the real one. A locked `sync` keeps it
/// beside the real one (exit 0, nothing lost), `sync --unlock` refuses it with exit 15 and one
/// sentence, `status` and `status --json` name it, and the other device goes on as before.
extension SyncCommandTests {
    func testAGarbageKeystoreIsRefusedWithExit15AndNamedByStatus() throws {
        let laptop = try makeVault()
        let account = try signUp(laptop)
        _ = try laptop.add("Bank", ["--password", "kept-by-both"])
        assertOK(try laptop.run(["sync", "--unlock"]))
        let desktop = try join(laptop, account)

        let url = try SyncCommandServer.require().appendingPathComponent("buckets/default/collections/keystores/records/default")
        let (current, status) = try SyncCommandServer.send(URLRequest(url: url), account: account)
        XCTAssertEqual(status, 200)
        var record = try XCTUnwrap((try JSONSerialization.jsonObject(with: current) as? [String: Any])?["data"] as? [String: Any])
        for member in ["id", "last_modified", "wrapping_tag", "wrapping_revision"] { record[member] = nil }
        var garbage = Data([2])
        withUnsafeBytes(of: (UInt64(Date().timeIntervalSince1970 * 1000) + 5_000).bigEndian) { garbage.append(contentsOf: $0) }
        garbage.append(Data((0..<240).map { _ in UInt8.random(in: 0...255) }))
        record["encrypted"] = garbage.base64EncodedString()
        record["verifier"] = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var put = URLRequest(url: url)
        put.httpMethod = "PUT"
        put.setValue("application/json", forHTTPHeaderField: "Content-Type")
        put.httpBody = try JSONSerialization.data(withJSONObject: ["data": record])
        XCTAssertEqual(try SyncCommandServer.send(put, account: account).1, 200)

        assertOK(try desktop.run(["sync"], unlock: false))
        let refused = try desktop.run(["sync", "--unlock"])
        assertExit(refused, 15)
        XCTAssertTrue(refused.err.contains("not ours"), refused.summary)
        let shown = try desktop.run(["status"], unlock: false)
        XCTAssertTrue(shown.out.contains("FORGED") || shown.err.contains("FORGED"), shown.summary)
        let json = try desktop.run(["status", "--json"], unlock: false)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        XCTAssertEqual(object["lastError"] as? String, "FORGED", json.summary)

        assertOK(try laptop.run(["sync", "--unlock"]))
        for device in [laptop, desktop] {
            let password = try device.run(["show", "Bank", "--field", "password"])
            assertOK(password)
            XCTAssertEqual(password.line, "kept-by-both")
        }
        assertOK(try desktop.run(["sync", "--unlock"]))
    }
}
