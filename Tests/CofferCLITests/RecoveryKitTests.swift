import CofferCore
import Foundation
import GRDB
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The recovery kit (issue 31) with the built binary and the real Kinto: every device lost, the
/// kit brings the vault back under a new passphrase on a new machine; a rotated kit opens nothing.
final class RecoveryKitTests: XCTestCase {
    private var server: URL!
    private var vaults: [TestVault] = []

    override func setUpWithError() throws {
        server = try SyncCommandServer.require()
    }

    override func tearDown() {
        for vault in vaults { vault.destroy() }
        super.tearDown()
    }

    private func machine(_ passphrase: String) throws -> TestVault {
        let vault = try TestVault(passphrase: passphrase)
        vaults.append(vault)
        return vault
    }

    private func code(in kit: String) throws -> String {
        try XCTUnwrap(kit.range(of: #"[0-9A-Z]{5}(-[0-9A-Z]{5}){4}-[0-9A-Z]{2}"#, options: .regularExpression).map { String(kit[$0]) },
                      "no code in: \(kit)")
    }

    func testAKitBringsTheVaultBackOnANewMachineAndARotatedOneOpensNothing() throws {
        let first = try TestVault.make()
        vaults.append(first)
        _ = try first.add("GitHub", ["--username", "ann", "--password", "canary-item-password"])
        _ = try first.add("Bank", ["--password", "canary-bank"])
        let account = (user: "kit-\(UUID().uuidString.lowercased().prefix(8))", password: "canary-account-\(UUID().uuidString)")
        let passwordFile = try first.writeWorkFile("account-password", account.password + "\n")
        assertOK(try first.run(["account", "signup", "--server", server.absoluteString, "--user", account.user,
                                "--password-file", passwordFile]))
        let kitPath = first.work.appendingPathComponent("kit.txt").path
        assertOK(try first.run(["recovery-kit", "--output", kitPath]))
        XCTAssertEqual(try permissions(kitPath), 0o600)
        let kit = try String(contentsOfFile: kitPath, encoding: .utf8)
        XCTAssertTrue(kit.contains("server: \(server.absoluteString)"), kit)
        let oldCode = try code(in: kit)
        assertError(try first.run(["recovery-kit"]), 2, mentions: ["--rotate"])
        assertError(try first.run(["recovery-kit", "--rotate", "--output", kitPath]), 2, mentions: ["exists"])

        // On the server: the kit's own account holds ciphertext only.
        let keys = try RecoveryKeys(code: RecoveryCode(parsing: oldCode))
        let (body, status) = try SyncCommandServer.send(URLRequest(url: server.appendingPathComponent("buckets/default/collections/recovery/records")),
                                                        account: (keys.accountName, keys.accountPassword))
        XCTAssertEqual(status, 200)
        let stored = String(decoding: body, as: UTF8.self)
        XCTAssertTrue(stored.contains("sealed"), stored)
        for canary in [account.password, account.user, first.passphrase, "canary-item-password", oldCode] {
            XCTAssertFalse(stored.contains(canary), "\(canary) on the server")
        }

        // Every device lost: a new machine, a new passphrase.
        let second = try machine("a new passphrase \(UUID().uuidString.prefix(6))")
        let recovered = try second.run(["recover", "--kit-file", kitPath] + TestVault.fastKDF)
        assertOK(recovered)
        XCTAssertTrue(recovered.err.contains("Recovered"), recovered.summary)
        XCTAssertEqual(Set(try second.list().compactMap { $0["title"] as? String }), ["GitHub", "Bank"])
        let shown = try second.run(["show", "GitHub", "--field", "password"])
        XCTAssertEqual(shown.out.trimmingCharacters(in: .newlines), "canary-item-password")
        _ = try second.add("After", ["--password", "canary-after"])
        assertOK(try second.run(["sync"]))

        // The new passphrase is the vault's: a third machine joins with it.
        let third = try machine(second.passphrase)
        assertOK(try third.run(["join", "--server", server.absoluteString, "--user", account.user, "--password-file", passwordFile]))
        XCTAssertEqual(Set(try third.list().compactMap { $0["title"] as? String }), ["GitHub", "Bank", "After"])

        // A typo is caught before anything is sent; --rotate voids the old kit.
        var typo = Array(oldCode)
        typo[0] = typo[0] == "A" ? "B" : "A"
        let stranger = try machine("unused passphrase")
        assertError(try stranger.run(["recover", "--server", server.absoluteString, "--code", String(typo)]), 2, mentions: ["typo"])
        let newKit = first.work.appendingPathComponent("kit-2.txt").path
        let rotated = try first.run(["recovery-kit", "--rotate", "--output", newKit])
        assertOK(rotated)
        XCTAssertTrue(rotated.err.contains("the old kit opens nothing now"), rotated.summary)
        let late = try machine("late passphrase")
        assertError(try late.run(["recover", "--kit-file", kitPath] + TestVault.fastKDF), 13, mentions: ["voided"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: late.path), "a refused kit left a vault file")
        assertOK(try late.run(["recover", "--kit-file", newKit] + TestVault.fastKDF))
        XCTAssertEqual(Set(try late.list().compactMap { $0["title"] as? String }), ["GitHub", "Bank", "After"])

        // The account's password changed since the kit was made (as `device rm --rotate` does):
        // the kit says why it restores nothing, and leaves no file.
        try SyncCommandServer.changePassword(server: server, account: account, to: "rotated-\(UUID().uuidString)")
        let stale = try machine("stale passphrase")
        assertError(try stale.run(["recover", "--kit-file", newKit] + TestVault.fastKDF), 13, mentions: ["password changed after the kit was made"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale.path), "a refused kit left a vault file")
    }
    /// Issue 49: a kit restores what the server holds, so `recovery-kit` sends this device's
    /// changes first; one a sync cannot send is named, there and by `status`, while it is not sent.
    func testAKitIsMadeAfterTheChangesAreSentAndNamesThoseThatCouldNotBe() throws {
        let first = try TestVault.make()
        vaults.append(first)
        let account = (user: "kit-\(UUID().uuidString.lowercased().prefix(8))", password: "account-\(UUID().uuidString)")
        let passwordFile = try first.writeWorkFile("account-password", account.password + "\n")
        assertOK(try first.run(["account", "signup", "--server", server.absoluteString, "--user", account.user,
                                "--password-file", passwordFile]))
        _ = try first.add("Late", ["--password", "canary-late"])
        let kitPath = first.work.appendingPathComponent("kit.txt").path
        let made = try first.run(["recovery-kit", "--output", kitPath])
        assertOK(made)
        XCTAssertFalse(made.err.contains("not on the server"), made.summary)
        var status = try first.run(["status", "--json"], unlock: false).jsonObject()
        XCTAssertEqual(status["pending"] as? Int, 0, "the kit sent the change first")
        XCTAssertEqual(status["recoveryKit"] as? Bool, true)
        let second = try machine("another passphrase \(UUID().uuidString.prefix(6))")
        assertOK(try second.run(["recover", "--kit-file", kitPath] + TestVault.fastKDF))
        XCTAssertEqual(try second.run(["show", "Late", "--field", "password"]).line, "canary-late")

        // A change no sync can send now (the server asked this device to back off): the kit is
        // still made, and both it and `status` say what it does not cover.
        _ = try first.add("Stuck", ["--password", "canary-stuck"])
        try DatabaseQueue(path: first.path).write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('backoff_until', '2099-01-01T00:00:00.000Z')")
        }
        let rotated = try first.run(["recovery-kit", "--rotate", "--output", first.work.appendingPathComponent("kit-2.txt").path])
        assertOK(rotated)
        XCTAssertTrue(rotated.err.contains("1 item change(s) are not on the server yet"), rotated.summary)
        XCTAssertTrue(rotated.err.contains("cannot bring them back"), rotated.summary)
        status = try first.run(["status", "--json"], unlock: false).jsonObject()
        XCTAssertEqual(status["notCoveredByKit"] as? Int, 1)
        let text = try first.run(["status"], unlock: false)
        XCTAssertTrue(text.out.contains("the kit cannot bring back the 1 item change(s) not on the server yet"), text.summary)
    }
}
