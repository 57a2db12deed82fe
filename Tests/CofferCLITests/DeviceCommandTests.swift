import Foundation
import XCTest

/// `coffer device …` on three vaults of one account, with the built binary and the real Kinto.
extension SyncCommandTests {
    func testDeviceCommandsOnThreeVaults() throws {
        let laptop = try makeVault()
        let account = try signUp(laptop)
        let desktop = try join(laptop, account)
        let phone = try join(laptop, account)
        for (vault, name) in [(laptop, "laptop"), (desktop, "desktop"), (phone, "phone")] {
            assertOK(try vault.run(["device", "rename", name], unlock: false))
            assertOK(try vault.run(["sync", "--unlock"]))
        }

        let listed = try laptop.run(["device", "list", "--json"])
        assertOK(listed)
        let devices = try XCTUnwrap(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]])
        XCTAssertEqual(Set(devices.compactMap { $0["name"] as? String }), ["laptop", "desktop", "phone"])
        XCTAssertEqual(devices.filter { $0["current"] as? Bool == true }.compactMap { $0["name"] as? String }, ["laptop"])
        XCTAssertTrue(devices.allSatisfy { $0["verified"] as? Bool == true && $0["lastSeen"] is String
                                           && ($0["capabilities"] as? [String])?.contains("signout") == true }, "\(devices)")
        let text = try laptop.run(["device", "list"])
        XCTAssertTrue(text.out.contains("★ laptop"), text.summary)

        assertOK(try laptop.run(["device", "lock", "--all"]))
        let phoneID = try XCTUnwrap(devices.first { $0["name"] as? String == "phone" }?["id"] as? String)
        assertOK(try laptop.run(["device", "signout", String(phoneID.prefix(8))]))
        assertOK(try phone.run(["sync", "--unlock"]))
        XCTAssertTrue(try phone.status()["account"] is NSNull, "the phone forgot the account")
        XCTAssertEqual(try SyncCommandServer.recordIDs(server: try SyncCommandServer.require(), account: account, collection: "messages").count, 1,
                       "the desktop's lock waits for it")
        assertOK(try desktop.run(["sync", "--unlock"]))
        XCTAssertEqual(try SyncCommandServer.recordIDs(server: try SyncCommandServer.require(), account: account, collection: "messages"), [])

        assertError(try laptop.run(["device", "lock", "nosuch"]), 1, mentions: ["nosuch"])
        assertError(try laptop.run(["device", "lock"]), 2, mentions: ["--all"])
        assertError(try laptop.run(["device", "rename", " "], unlock: false), 2, mentions: ["name"])
    }
}
