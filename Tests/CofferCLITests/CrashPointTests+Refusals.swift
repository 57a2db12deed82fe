import CofferCore
import CofferTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Issue 41's refusals under a crash (`CrashPoint.refusals`), with the built binary and the real
/// Kinto: the server put garbage over an item or the keystore; `sync --unlock` dies while it puts
/// this device's copy in place of the garbage (inside that write), or right after it committed.
/// Nothing is lost (a crash inside the items' refusal leaves the state of a locked sync: ours in
/// the mirror, readable again at the next unlocked sync), the next sync refuses again (a crash inside: exit 15) or sends what it
/// committed (after), the server ends with our copy, and the other device reads it.
extension CrashPointTests {
    private typealias Account = (user: String, password: String)

    func testACrashWhileARefusedItemIsReplacedByOursLosesNothing() throws {
        for point in ["sync.refuse.items.inside", "sync.refuse.items.after"] {
            try refusalCrash(at: point, collection: "items")
        }
    }

    func testACrashWhileARefusedKeystoreIsReplacedByOursLosesNothing() throws {
        for point in ["sync.refuse.keystores.inside", "sync.refuse.keystores.after"] {
            try refusalCrash(at: point, collection: "keystores")
        }
    }

    func testEveryRefusalPointIsTested() {
        XCTAssertEqual(Set(CrashPoint.refusals),
                       ["sync.refuse.items.inside", "sync.refuse.items.after", "sync.refuse.keystores.inside", "sync.refuse.keystores.after"])
        XCTAssertTrue(Set(CrashPoint.refusals).isDisjoint(with: CrashPoint.all), "the harness's scenario sends nothing to refuse")
    }

    /// Laptop and desktop hold Bank; the server puts garbage over `collection`'s record (Bank's, or
    /// the keystore); the desktop's `sync --unlock` dies at `point`.
    private func refusalCrash(at point: String, collection: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try CrashServer.require()
        let laptop = try TestVault.make()
        defer { laptop.destroy() }
        let account: Account = ("crash-refuse-\(UUID().uuidString.lowercased())", "pw-\(UUID().uuidString)")
        let accountFile = try laptop.writeWorkFile("account-password", account.password + "\n")
        let bank = try laptop.add("Bank", ["--password", "kept-by-both"])
        assertOK(try laptop.run(["account", "signup", "--server", server.absoluteString, "--user", account.user,
                                 "--password-file", accountFile], unlock: false), file: file, line: line)
        let desktop = try TestVault(passphrase: laptop.passphrase)
        defer { desktop.destroy() }
        let desktopFile = try desktop.writeWorkFile("account-password", account.password + "\n")
        assertOK(try desktop.run(["join", "--server", server.absoluteString, "--user", account.user, "--password-file", desktopFile]),
                 file: file, line: line)

        let id = collection == "items" ? bank : "default"
        let url = server.appendingPathComponent("buckets/default/collections/\(collection)/records/\(id)")
        let (current, status) = try SyncCommandServer.send(URLRequest(url: url), account: account)
        XCTAssertEqual(status, 200, file: file, line: line)
        var record = try XCTUnwrap((try JSONSerialization.jsonObject(with: current) as? [String: Any])?["data"] as? [String: Any])
        for member in ["id", "last_modified"] { record[member] = nil }
        var garbage = Data([2])
        withUnsafeBytes(of: (UInt64(Date().timeIntervalSince1970 * 1000) + 5_000).bigEndian) { garbage.append(contentsOf: $0) }
        garbage.append(Data(count: Lineage.digestLength))
        garbage.append(Data((0..<240).map { _ in UInt8.random(in: 0...255) }))
        record["encrypted"] = garbage.base64EncodedString()
        var put = URLRequest(url: url)
        put.httpMethod = "PUT"
        put.setValue("application/json", forHTTPHeaderField: "Content-Type")
        put.httpBody = try JSONSerialization.data(withJSONObject: ["data": record])
        XCTAssertEqual(try SyncCommandServer.send(put, account: account).1, 200, file: file, line: line)

        let crashed = try CofferProcess.run(["--vault", desktop.path, "--passphrase-file", desktop.passphraseFile, "sync", "--unlock"],
                                            home: desktop.root, environment: [CrashPoint.environmentVariable: point])
        XCTAssertEqual(crashed.status, CrashPoint.exitCode, "\(point): the crash point was reached: \(crashed.summary)", file: file, line: line)
        if point == "sync.refuse.items.inside" {
            // Rolled back to what the fetch left, as after a locked sync: the garbage stands in
            // stable and the version this device could read waits in the mirror for the check.
            let mirrored = try Vault.open(at: desktop.path).database.read { try VaultDatabase.mirroredItems(in: $0) }
            XCTAssertEqual(mirrored.map(\.id), [bank], "\(point): ours is kept in the mirror", file: file, line: line)
        } else {
            let kept = try desktop.run(["show", "Bank", "--field", "password"])
            assertOK(kept, file: file, line: line)
            XCTAssertEqual(kept.line, "kept-by-both", "\(point): nothing lost", file: file, line: line)
        }

        // Inside: the write was rolled back, so the next sync refuses again. After: ours was
        // committed, and the next sync sends it.
        let next = try desktop.run(["sync", "--unlock"])
        assertExit(next, point.hasSuffix(".inside") ? 15 : 0, file: file, line: line)
        let (after, _) = try SyncCommandServer.send(URLRequest(url: url), account: account)
        let served = (try JSONSerialization.jsonObject(with: after) as? [String: Any])?["data"] as? [String: Any]
        XCTAssertNotEqual(served?["encrypted"] as? String, record["encrypted"] as? String, "\(point): ours went back", file: file, line: line)
        for device in [desktop, laptop, desktop] {
            assertOK(try device.run(["sync", "--unlock"]), file: file, line: line)
        }
        for device in [laptop, desktop] {
            let password = try device.run(["show", "Bank", "--field", "password"])
            assertOK(password, file: file, line: line)
            XCTAssertEqual(password.line, "kept-by-both", "\(point)", file: file, line: line)
        }
    }
}
