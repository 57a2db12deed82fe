import CofferTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
import XCTest

/// Issue 41, "Old data keeps working": vault files and server records made by 8697dd8 (main when the
/// issue was filed; `Fixtures/v8697dd8/README.txt` says how) open and sync with this build.
///
/// The fixture's server records go into a fresh account of the test Kinto with their own timestamps
/// (a tombstone is a record put, then deleted at its timestamp), and each vault's account settings
/// are pointed at that account, as if the same server had gone on running: a marker that was the
/// collection's ETag becomes the new collection's ETag (Kinto starts a collection's timestamp at its
/// first request, so the old ETag cannot be had again), any other marker is a record timestamp and
/// stays. The bucket id the old server named is forgotten and learned again.
final class OldVersionFixtureTests: XCTestCase {
    private static let passphrase = "old vault passphrase 8697dd8"
    private static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/v8697dd8")
    private static let collections = ["items", "keystores", "attachments", "devices", "messages"]

    private var server: URL!
    private var account = (user: "", password: "")
    private var devices: [TestVault] = []
    private var ids: [String: String] = [:]

    override func setUpWithError() throws {
        server = try SyncCommandServer.require()
        account = ("old-\(UUID().uuidString.lowercased())", "pw-\(UUID().uuidString)")
        let idsFile = Self.fixture.appendingPathComponent("ids.json")
        ids = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: idsFile)) as? [String: String])
    }

    override func tearDown() {
        for device in devices {
            for pid in AgentProbe.processes(device) { kill(pid, SIGKILL) }
            device.destroy()
        }
        super.tearDown()
    }

    func testVaultsAndServerRecordsOf8697dd8OpenAndSync() throws {
        let etags = try loadServerRecords()
        let laptop = try device("laptop", etags: etags)
        let desktop = try device("desktop", etags: etags)
        let tablet = try device("tablet", etags: etags)

        // Opens (migrations v8 and v9 run at the first open) and shows every item as 8697dd8 wrote it.
        let status = try laptop.status()
        XCTAssertEqual(status["items"] as? Int, 4)
        XCTAssertEqual(status["pending"] as? Int, 0)
        XCTAssertEqual(status["account"] as? String, account.user)
        XCTAssertEqual(Set(try laptop.list().compactMap { $0["title"] as? String }), ["Mail", "Door codes", "Visa", "Bank"])
        try assertOldItems(on: laptop)
        let totp = try laptop.ok(["totp", "Mail"])
        XCTAssertNotNil(totp.line.range(of: #"^\d{6}"#, options: .regularExpression), totp.summary)
        XCTAssertEqual(try laptop.ok(["attachment", "Door codes", "codes.txt"]).stdout,
                       Data("small attachment, made by 8697dd8\n".utf8))

        // Up to date with the server: a locked sync and an unlocked one find nothing to do, exit 0.
        // (The plain tombstone 8697dd8 left for "Old forum" is older than this device's marker: it is
        // never listed to it, and this device no longer holds the item anyway.)
        let locked = try laptop.run(["sync"], unlock: false)
        assertOK(locked)
        let unlocked = try laptop.run(["sync", "--unlock"])
        assertOK(unlocked)
        XCTAssertTrue(unlocked.out.contains("0 received") || unlocked.err.contains("0 received"), unlocked.summary)
        try assertSettled(laptop, items: 4)

        // This version's own writes on old data: an edit and a (sealed) removal go up.
        try laptop.ok(["edit", "Mail", "--password", "mail-pass-2"])
        try laptop.ok(["rm", "--purge", "Visa"])
        assertOK(try laptop.run(["sync", "--unlock"]))
        let visa = try serverRecord("items", try XCTUnwrap(ids["visa"]))
        XCTAssertEqual(visa["deleted"] as? Bool, true, "\(visa)")
        XCTAssertNotNil(visa["encrypted"] as? String, "a sealed removal, kept on the server: \(visa)")
        let again = try laptop.run(["sync", "--unlock"])
        assertOK(again)
        XCTAssertTrue(again.out.contains("0 sent") || again.err.contains("0 sent"), again.summary)
        try assertSettled(laptop, items: 3)

        // The other up-to-date device of 8697dd8 takes both: the removal authenticates under the item's key.
        assertOK(try desktop.run(["sync", "--unlock"]))
        XCTAssertEqual(try desktop.ok(["show", "Mail", "--field", "password"]).line, "mail-pass-2")
        XCTAssertEqual(Set(try desktop.list().compactMap { $0["title"] as? String }), ["Mail", "Door codes", "Bank"])
        XCTAssertEqual(try desktop.ok(["attachment", "Door codes", "codes.txt"]).stdout,
                       Data("small attachment, made by 8697dd8\n".utf8))
        try assertSettled(desktop, items: 3)

        // A device of 8697dd8 that last synced before the old removal: it holds "Old forum", and the
        // server's plain tombstone of it is newer than its marker. A plain Kinto DELETE is refused by
        // design (architecture §4, "Removals"): the item goes up again and the sync ends FORGED (15).
        // Everything else arrives: Bank's two edits, Mail's edit, Visa's sealed removal.
        let stale = try tablet.run(["sync", "--unlock"])
        assertExit(stale, 15)
        XCTAssertEqual(try tablet.ok(["show", "Bank", "--field", "password"]).line, "bank-pass-3")
        XCTAssertEqual(try tablet.ok(["show", "Mail", "--field", "password"]).line, "mail-pass-2")
        XCTAssertEqual(Set(try tablet.list().compactMap { $0["title"] as? String }), ["Mail", "Door codes", "Bank", "Old forum"])
        let forum = try serverRecord("items", try XCTUnwrap(ids["forum"]))
        XCTAssertNil(forum["deleted"], "the refused removal's item is back on the server: \(forum)")
        assertOK(try tablet.run(["sync", "--unlock"]))
        try assertSettled(tablet, items: 4)
        assertOK(try laptop.run(["sync", "--unlock"]))
        XCTAssertEqual(try laptop.ok(["show", "Old forum", "--field", "password"]).line, "forum-pass")
        try assertSettled(laptop, items: 4)
    }

    // MARK: Checks

    /// The four items as 8697dd8 wrote them, every field.
    private func assertOldItems(on device: TestVault, file: StaticString = #filePath, line: UInt = #line) throws {
        let mail = try device.show("Mail", reveal: true, file: file, line: line)
        XCTAssertEqual(mail["kind"] as? String, "login", file: file, line: line)
        XCTAssertEqual(mail["username"] as? String, "ann", file: file, line: line)
        XCTAssertEqual(mail["password"] as? String, "mail-pass-1", file: file, line: line)
        XCTAssertEqual(mail["totp"] as? String, "JBSWY3DPEHPK3PXP", file: file, line: line)
        XCTAssertEqual(mail["notes"] as? String, "the mail login", file: file, line: line)
        XCTAssertEqual(mail["origins"] as? [String], ["https://mail.example.com"], file: file, line: line)
        XCTAssertEqual(mail["tags"] as? [String], ["work"], file: file, line: line)

        let codes = try device.show("Door codes", file: file, line: line)
        XCTAssertEqual(codes["kind"] as? String, "note", file: file, line: line)
        XCTAssertEqual(codes["notes"] as? String, "front 1234, back 5678", file: file, line: line)
        XCTAssertEqual(codes["tags"] as? [String], ["home"], file: file, line: line)
        let files = try XCTUnwrap(codes["attachments"] as? [[String: Any]], "\(codes)", file: file, line: line)
        XCTAssertEqual(files.map { $0["name"] as? String }, ["codes.txt"], file: file, line: line)
        XCTAssertEqual(files.first?["size"] as? Int, 34, file: file, line: line)

        let visa = try device.show("Visa", reveal: true, file: file, line: line)
        XCTAssertEqual(visa["kind"] as? String, "card", file: file, line: line)
        XCTAssertEqual(visa["fields"] as? [String: String], ["cardholder": "Ann Example", "number": "4111111111111111",
                                                            "expiry_month": "7", "expiry_year": "2031", "code": "123"],
                       file: file, line: line)
        let custom = try XCTUnwrap(visa["custom"] as? [[String: Any]], "\(visa)", file: file, line: line)
        XCTAssertEqual(custom.map { "\($0["label"] ?? "")=\($0["value"] ?? "") (\($0["type"] ?? ""))" },
                       ["Bank=ACME (text)", "PIN hint=birthday (hidden)"], file: file, line: line)

        let bank = try device.show("Bank", reveal: true, file: file, line: line)
        XCTAssertEqual(bank["password"] as? String, "bank-pass-3", file: file, line: line)
        XCTAssertEqual(bank["notes"] as? String, "edited twice", file: file, line: line)
        let history = try XCTUnwrap(bank["history"] as? [[String: Any]], "\(bank)", file: file, line: line)
        XCTAssertEqual(history.compactMap { ($0["patch"] as? [String: Any])?["password"] as? String },
                       ["bank-pass-2", "bank-pass-1"], file: file, line: line)
    }

    /// Nothing pending, no error, `items` items.
    private func assertSettled(_ device: TestVault, items: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let status = try device.status(file: file, line: line)
        XCTAssertEqual(status["items"] as? Int, items, "\(status)", file: file, line: line)
        XCTAssertEqual(status["pending"] as? Int, 0, "\(status)", file: file, line: line)
        XCTAssertEqual(status["conflicts"] as? Int, 0, "\(status)", file: file, line: line)
        XCTAssertTrue(status["lastError"] is NSNull, "\(status)", file: file, line: line)
    }

    // MARK: Set-up

    /// A copy of the fixture's `name.db`, its account settings pointed at the test account.
    private func device(_ name: String, etags: (old: [String: String], new: [String: String])) throws -> TestVault {
        let device = try TestVault(passphrase: Self.passphrase)
        devices.append(device)
        try FileManager.default.createDirectory(at: device.directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.fixture.appendingPathComponent("\(name).db"),
                                         to: URL(fileURLWithPath: device.path))
        chmod(device.path, 0o600)
        let queue = try DatabaseQueue(path: device.path)
        try queue.write { db in
            for (key, value) in [("account_server", server.absoluteString), ("account_user", account.user),
                                 ("account_password", account.password)] {
                try db.execute(sql: "UPDATE meta SET value = ? WHERE key = ?", arguments: [value, key])
                XCTAssertEqual(db.changesCount, 1, "\(name).db has no \(key)")
            }
            try db.execute(sql: "DELETE FROM meta WHERE key = 'account_bucket'")
            for (collection, old) in etags.old {
                guard let new = etags.new[collection] else { continue }
                try db.execute(sql: "UPDATE markers SET etag = ? WHERE collection = ? AND etag = ?",
                               arguments: [new, collection, old])
            }
        }
        try queue.close()
        return device
    }

    /// Makes the account and puts the fixture's records in it; returns the old and new ETags.
    private func loadServerRecords() throws -> (old: [String: String], new: [String: String]) {
        var signup = URLRequest(url: server.appendingPathComponent("accounts/\(account.user)"))
        signup.httpMethod = "PUT"
        signup.setValue("application/json", forHTTPHeaderField: "Content-Type")
        signup.httpBody = try JSONSerialization.data(withJSONObject: ["data": ["password": account.password]])
        XCTAssertEqual(try SyncCommandServer.send(signup).1, 201)

        var old: [String: String] = [:]
        let etagText = try String(contentsOf: Self.fixture.appendingPathComponent("server/etags.txt"), encoding: .utf8)
        for line in etagText.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2 { old[String(parts[0])] = String(parts[1]) }
        }
        var new: [String: String] = [:]
        for collection in Self.collections {
            let file = Self.fixture.appendingPathComponent("server/\(collection).json")
            let records = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]])
            for record in records {
                let id = try XCTUnwrap(record["id"] as? String)
                let stamp = try XCTUnwrap((record["last_modified"] as? NSNumber)?.int64Value)
                let url = recordURL(collection, id)
                if record["deleted"] as? Bool == true {
                    // Kinto keeps a timestamp given in the body or in DELETE's query (one later than the record's).
                    try expect(put(url, ["last_modified": 1]), 201)
                    var components = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false))
                    components.queryItems = [URLQueryItem(name: "last_modified", value: String(stamp))]
                    var delete = URLRequest(url: try XCTUnwrap(components.url))
                    delete.httpMethod = "DELETE"
                    try expect(SyncCommandServer.send(delete, account: account), 200)
                } else {
                    try expect(put(url, record.filter { $0.key != "id" }), 201)
                }
            }
            new[collection] = try etag(of: collection)
        }
        for collection in Self.collections {
            let file = Self.fixture.appendingPathComponent("server/\(collection).json")
            let expected = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? NSArray)
            XCTAssertEqual(try listing(collection), expected, "\(collection) loaded as dumped")
        }
        return (old, new)
    }

    private func recordURL(_ collection: String, _ id: String) -> URL {
        server.appendingPathComponent("buckets/default/collections/\(collection)/records/\(id)")
    }

    private func put(_ url: URL, _ data: [String: Any]) throws -> (Data, Int) {
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["data": data])
        return try SyncCommandServer.send(request, account: account)
    }

    private func expect(_ answer: (Data, Int), _ status: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(answer.1, status, String(decoding: answer.0, as: UTF8.self), file: file, line: line)
    }

    /// Every record of `collection`, tombstones included, oldest first: what the fixture's dump holds.
    private func listing(_ collection: String) throws -> NSArray {
        let url = server.appendingPathComponent("buckets/default/collections/\(collection)/records")
        var components = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "_since", value: "0"), URLQueryItem(name: "_sort", value: "last_modified")]
        let (data, status) = try SyncCommandServer.send(URLRequest(url: try XCTUnwrap(components.url)), account: account)
        XCTAssertEqual(status, 200)
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["data"] as? NSArray)
    }

    private func etag(of collection: String) throws -> String {
        let url = server.appendingPathComponent("buckets/default/collections/\(collection)/records")
        var components = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "_limit", value: "1")]
        var request = URLRequest(url: try XCTUnwrap(components.url))
        request.timeoutInterval = 15
        let token = Data("\(account.user):\(account.password)".utf8).base64EncodedString()
        request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
        final class Box: @unchecked Sendable { var etag: String? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, response, _ in
            box.etag = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag")
            done.signal()
        }.resume()
        done.wait()
        return try XCTUnwrap(box.etag).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    private func serverRecord(_ collection: String, _ id: String) throws -> [String: Any] {
        let (data, status) = try SyncCommandServer.send(URLRequest(url: recordURL(collection, id)), account: account)
        if status == 404 { return ["deleted": true, "status": 404] }
        XCTAssertEqual(status, 200)
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["data"] as? [String: Any])
    }
}
