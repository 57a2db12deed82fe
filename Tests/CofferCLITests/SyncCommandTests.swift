import CofferTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `account`, `join` and `sync` of the built binary against the real Kinto (`COFFER_TEST_KINTO_URL`),
/// each test on accounts of its own: exit codes 0, 2, 3, 10–13 and what `status --json` shows.
final class SyncCommandTests: XCTestCase {
    private var server: URL!
    private var vaults: [TestVault] = []
    var proxies: [FaultProxy] = []

    override func setUpWithError() throws {
        server = try SyncCommandServer.require()
    }

    override func tearDown() {
        for proxy in proxies { proxy.stop() }
        for vault in vaults {
            for pid in AgentProbe.processes(vault) { kill(pid, SIGKILL) }
            vault.destroy()
        }
        super.tearDown()
    }

    // MARK: Set-up helpers

    /// A new vault made with `init --kdf-memory 64 --kdf-iterations 3 --passphrase-file`.
    func makeVault(file: StaticString = #filePath, line: UInt = #line) throws -> TestVault {
        let vault = try TestVault.make(file: file, line: line)
        vaults.append(vault)
        return vault
    }

    /// A directory and passphrase file, but no vault (for `join`).
    private func emptyDevice(passphrase: String) throws -> TestVault {
        let vault = try TestVault(passphrase: passphrase)
        vaults.append(vault)
        return vault
    }

    private func newAccount() -> (user: String, password: String) {
        ("cli-\(UUID().uuidString.lowercased())", "pw-\(UUID().uuidString)")
    }

    private func passwordFile(_ vault: TestVault, _ password: String) throws -> String {
        try vault.writeWorkFile("account-password", password + "\n")
    }

    /// `account signup` of a new account for `vault`; returns the account.
    func signUp(_ vault: TestVault, file: StaticString = #filePath,
                        line: UInt = #line) throws -> (user: String, password: String) {
        let account = newAccount()
        let result = try vault.run(["account", "signup", "--server", server.absoluteString, "--user", account.user,
                                    "--password-file", try passwordFile(vault, account.password)],
                                   unlock: false, file: file, line: line)
        assertOK(result, file: file, line: line)
        return account
    }

    /// `join` from a new, empty device directory with the passphrase of `original`.
    func join(_ original: TestVault, _ account: (user: String, password: String),
                      file: StaticString = #filePath, line: UInt = #line) throws -> TestVault {
        let device = try emptyDevice(passphrase: original.passphrase)
        let result = try device.run(["join", "--server", server.absoluteString, "--user", account.user,
                                     "--password-file", try passwordFile(device, account.password)],
                                    file: file, line: line)
        assertOK(result, file: file, line: line)
        return device
    }

    // MARK: account signup / status / logout

    func testSignupSyncsAndAccountStatusChecksTheServerAndLogoutForgetsIt() throws {
        let vault = try emptyDevice(passphrase: "correct horse \(UUID().uuidString.prefix(8))")
        let created = try vault.run(["init", "--kdf-memory", "64", "--kdf-iterations", "3"])
        assertOK(created)
        XCTAssertTrue(created.err.contains("64 MiB") && created.err.contains("3 iterations"), created.summary)
        let id = try vault.add("Mail", ["--username", "ann", "--password", "s3cret"])

        let account = try signUp(vault)
        var status = try vault.status()
        XCTAssertEqual(status["account"] as? String, account.user)
        XCTAssertTrue(status["lastError"] is NSNull, "\(status)")
        XCTAssertEqual(status["pending"] as? Int, 0, "signup ran the first sync")
        XCTAssertEqual(status["pendingVaultRecords"] as? Int, 0, "the keystore too")
        XCTAssertNotNil(status["lastSync"] as? String, "\(status)")
        let onServer = try SyncCommandServer.recordIDs(server: server, account: account, collection: "items")
        XCTAssertEqual(onServer, [id])

        let checked = try vault.run(["account", "status"], unlock: false)
        assertOK(checked)
        XCTAssertTrue(checked.out.contains(account.user), checked.summary)
        XCTAssertTrue(checked.out.contains(server.absoluteString), checked.summary)
        XCTAssertTrue(checked.out.contains("ok"), checked.summary)

        // The same name again, from another vault: the account exists.
        let other = try makeVault()
        let again = try other.run(["account", "signup", "--server", server.absoluteString, "--user", account.user,
                                   "--password-file", try passwordFile(other, "another password")], unlock: false)
        XCTAssertNotEqual(again.status, 0, again.summary)
        XCTAssertTrue(again.err.contains("already exists"), again.summary)
        XCTAssertTrue(try other.status()["account"] is NSNull, "nothing was saved")

        let loggedOut = try vault.run(["account", "logout"], unlock: false)
        assertOK(loggedOut)
        status = try vault.status()
        XCTAssertTrue(status["account"] is NSNull, "\(status)")
        XCTAssertEqual(status["items"] as? Int, 1, "the items stay on the device")
        assertError(try vault.run(["sync"], unlock: false), 2, mentions: ["account"])
        let none = try vault.run(["account", "status"], unlock: false)
        assertOK(none)
        XCTAssertTrue(none.out.lowercased().contains("no sync account"), none.summary)
    }

    // MARK: account login

    func testLoginToAnAccountHoldingAnotherVaultIsRefused() throws {
        let first = try makeVault()
        _ = try first.add("First vault's item")
        let account = try signUp(first)

        let second = try makeVault()
        _ = try second.add("Second vault's item")
        let refused = try second.run(["account", "login", "--server", server.absoluteString, "--user", account.user,
                                      "--password-file", try passwordFile(second, account.password)], unlock: false)
        assertError(refused, 2, mentions: ["already holds a vault", "join"])
        XCTAssertTrue(try second.status()["account"] is NSNull)
        XCTAssertEqual(try SyncCommandServer.recordIDs(server: server, account: account, collection: "items").count, 1,
                       "nothing of the second vault reached the account")

        // The vault that lives there may sign in again.
        assertOK(try first.run(["account", "logout"], unlock: false))
        let back = try first.run(["account", "login", "--server", server.absoluteString, "--user", account.user,
                                  "--password-file", try passwordFile(first, account.password)], unlock: false)
        assertOK(back)
        XCTAssertEqual(try first.status()["account"] as? String, account.user)

        let wrong = try second.run(["account", "login", "--server", server.absoluteString, "--user", account.user,
                                    "--password-file", try passwordFile(second, "not the password")], unlock: false)
        assertError(wrong, 13)
    }

    // MARK: join

    func testJoinWithTheWrongPassphraseCreatesNothingAndWithTheRightOneGetsEverything() throws {
        let original = try makeVault()
        let id = try original.add("Bank", ["--username", "ann", "--password", "pin-1234", "--tag", "money"])
        let account = try signUp(original)

        let wrong = try emptyDevice(passphrase: "not the vault's passphrase")
        let refused = try wrong.run(["join", "--server", server.absoluteString, "--user", account.user,
                                     "--password-file", try passwordFile(wrong, account.password)])
        assertError(refused, 3, mentions: ["passphrase"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: wrong.path), "no vault file")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: wrong.directory.path)) ?? []
        XCTAssertEqual(leftovers, [], "nothing created next to it")

        let device = try join(original, account)
        let shown = try device.show(id, reveal: true)
        XCTAssertEqual(shown["password"] as? String, "pin-1234")
        XCTAssertEqual(shown["tags"] as? [String], ["money"])
        let status = try device.status()
        XCTAssertEqual(status["account"] as? String, account.user)
        XCTAssertEqual(status["pending"] as? Int, 0)
        XCTAssertTrue(status["lastError"] is NSNull, "\(status)")

        // Joining onto an existing file is refused.
        let again = try device.run(["join", "--server", server.absoluteString, "--user", account.user,
                                    "--password-file", try passwordFile(device, account.password)])
        XCTAssertNotEqual(again.status, 0, again.summary)
        XCTAssertTrue(again.err.contains("already exists"), again.summary)
    }

    // MARK: sync

    func testSyncAndItsExitCodes() throws {
        let a = try makeVault()
        let shared = try a.add("Shared", ["--username", "u0", "--password", "p0"])
        let account = try signUp(a)
        let b = try join(a, account)

        // 0: an item travels A → B.
        let added = try a.add("Added on A", ["--password", "pa"])
        let pushed = try a.run(["sync"], unlock: false)
        assertOK(pushed)
        XCTAssertTrue(pushed.err.contains("Synced"), pushed.summary)
        // The spellings a timer uses, read by hand (HandReadOptions), take the same path.
        let timed = try CofferProcess.run(["sync", "--vault=\(b.path)"], home: b.root)
        assertOK(timed)
        XCTAssertTrue(timed.err.contains("Synced: "), timed.summary)
        XCTAssertEqual(try b.show(added, reveal: true)["password"] as? String, "pa")
        assertOK(try CofferProcess.run(["sync", "--vault", b.path, "--unlock", "--passphrase-file", b.passphraseFile],
                                       home: b.root))

        // 12: both changed one item; B syncs without unlocking.
        _ = try a.ok(["edit", shared, "--password", "p1 from A"])
        _ = try b.ok(["edit", shared, "--username", "u1 from B"])
        assertOK(try a.run(["sync"], unlock: false))
        let locked = try b.run(["sync"], unlock: false)
        assertError(locked, 12, mentions: ["unlock"])
        var status = try b.status()
        XCTAssertEqual(status["lastError"] as? String, "SYNC_LOCKED")
        XCTAssertEqual(status["conflicts"] as? Int, 1)
        let merged = try b.run(["sync", "--unlock"])
        assertOK(merged)
        assertOK(try a.run(["sync"], unlock: false))
        let onA = try a.show(shared, reveal: true)
        XCTAssertEqual(onA["password"] as? String, "p1 from A")
        XCTAssertEqual(onA["username"] as? String, "u1 from B")
        status = try b.status()
        XCTAssertTrue(status["lastError"] is NSNull, "\(status)")
        XCTAssertEqual(status["conflicts"] as? Int, 0)

        // 13: the account's password changed on the server (from another device, say).
        let newPassword = "pw-\(UUID().uuidString)"
        try SyncCommandServer.changePassword(server: server, account: account, to: newPassword)
        _ = try b.ok(["edit", shared, "--notes", "written while the password was wrong"])
        assertError(try b.run(["sync"], unlock: false), 13, mentions: ["password"])
        status = try b.status()
        XCTAssertEqual(status["lastError"] as? String, "SYNC_AUTH")
        XCTAssertEqual(status["pending"] as? Int, 1, "the edit waits")
        XCTAssertEqual(status["pendingVaultRecords"] as? Int, 0)
        // Signing in again with the new password (the account holds this very vault) fixes it.
        assertOK(try b.run(["account", "login", "--server", server.absoluteString, "--user", account.user,
                            "--password-file", try passwordFile(b, newPassword)], unlock: false))
        status = try b.status()
        XCTAssertTrue(status["lastError"] is NSNull, "\(status)")
        XCTAssertEqual(status["pending"] as? Int, 0)
    }

    func testSyncWithTheServerGoneIsOfflineAndABrokenServerIsNetwork() async throws {
        let a = try makeVault()
        _ = try a.add("Kept while offline")
        let proxy = try FaultProxy(upstream: server)
        proxies.append(proxy)
        let account = newAccount()
        let signup = try a.run(["account", "signup", "--server", proxy.url.absoluteString, "--user", account.user,
                                "--password-file", try passwordFile(a, account.password)], unlock: false)
        assertOK(signup)
        _ = try a.add("Added before the failures")

        // 11: the server answers 500.
        try await proxy.setFault(.status500, count: -1)
        assertError(try a.run(["sync"], unlock: false), 11)
        XCTAssertEqual(try a.status()["lastError"] as? String, "NETWORK")

        // 10: nothing listens on the port any more.
        proxy.stop()
        assertError(try a.run(["sync"], unlock: false), 10, mentions: ["reach"])
        let status = try a.status()
        XCTAssertEqual(status["lastError"] as? String, "OFFLINE")
        XCTAssertEqual(status["pending"] as? Int, 1, "the new item waits")
        XCTAssertEqual(status["pendingVaultRecords"] as? Int, 1, "and its key")
        XCTAssertEqual(status["items"] as? Int, 2)
    }
}

/// The real Kinto for these tests (`COFFER_TEST_KINTO_URL`); a failure without it.
enum SyncCommandServer {
    static func require(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try TestKinto.url(file: file, line: line)
    }

    /// The ids of a collection's live records on the account, sorted.
    static func recordIDs(server: URL, account: (user: String, password: String), collection: String) throws -> [String] {
        let url = server.appendingPathComponent("buckets/default/collections/\(collection)/records")
        let (data, status) = try send(URLRequest(url: url), account: account)
        guard status == 200, let body = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let records = body["data"] as? [[String: Any]] else {
            throw CommandTestFailure("GET \(url.path) answered \(status): \(String(decoding: data, as: UTF8.self).prefix(300))")
        }
        return records.compactMap { $0["id"] as? String }.sorted()
    }

    /// Changes the account's password on the server (Kinto's accounts plugin lets a user do it).
    static func changePassword(server: URL, account: (user: String, password: String), to password: String) throws {
        var request = URLRequest(url: server.appendingPathComponent("accounts/\(account.user)"))
        request.httpMethod = "PATCH"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["data": ["password": password]])
        let (data, status) = try send(request, account: account)
        guard status == 200 else {
            throw CommandTestFailure("changing the password answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
    }

    static func send(_ request: URLRequest, account: (user: String, password: String)? = nil) throws -> (Data, Int) {
        var request = request
        request.timeoutInterval = 15
        if let account {
            let token = Data("\(account.user):\(account.password)".utf8).base64EncodedString()
            request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
        }
        final class Box: @unchecked Sendable { var result: Result<(Data, Int), Error> = .failure(CommandTestFailure("no answer")) }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error {
                box.result = .failure(error)
            } else {
                box.result = .success((data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0))
            }
            done.signal()
        }.resume()
        done.wait()
        return try box.result.get()
    }
}

struct CommandTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
