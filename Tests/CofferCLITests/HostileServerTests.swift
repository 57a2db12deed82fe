import CofferTestSupport
import Foundation
import GRDB
import XCTest

/// Issue 28, finding 4 (and the device names of finding 3): what the server or another device
/// sends never drives this terminal. With the built binary, the real Kinto and the fault proxy.
extension SyncCommandTests {
    /// A 500 whose message holds escapes: `sync` shows it escaped, the vault keeps it escaped and
    /// cut, `status` and `coffer` outside a terminal show it escaped, even as an old vault kept it raw.
    func testAServerMessageIsShownAndStoredEscaped() async throws {
        let vault = try makeVault()
        let proxy = try FaultProxy(upstream: try SyncCommandServer.require())
        proxies.append(proxy)
        let account = (user: "cli-\(UUID().uuidString.lowercased())", password: "pw-\(UUID().uuidString)")
        assertOK(try vault.run(["account", "signup", "--server", proxy.url.absoluteString, "--user", account.user,
                                "--password-file", try vault.writeWorkFile("account-password", account.password + "\n")],
                               unlock: false))
        _ = try vault.add("Waits for the server")

        try await proxy.setFault(.status500, count: -1, message: Hostile.text("server") + String(repeating: "x", count: 2_000))
        let sync = try vault.run(["sync"], unlock: false)
        XCTAssertEqual(sync.status, 11, sync.summary)
        assertTerminalSafe(sync, shows: [Hostile.shown("server")])
        XCTAssertLessThan(sync.err.count, 800, "the message is cut: \(sync.err.count) characters")

        let stored = try lastErrorMessage(of: vault)
        XCTAssertTrue(stored.contains(Hostile.shown("server")), stored.debugDescription)
        XCTAssertFalse(stored.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, stored.debugDescription)
        XCTAssertLessThanOrEqual(stored.count, 500)

        assertTerminalSafe(try vault.run(["status"], unlock: false), shows: [Hostile.shown("server")])
        assertTerminalSafe(try vault.run([], unlock: false), shows: [Hostile.shown("server")])

        // A vault written by an earlier version holds the message as the server sent it.
        try setLastErrorMessage(of: vault, to: Hostile.text("old"))
        assertTerminalSafe(try vault.run(["status"], unlock: false), shows: [Hostile.shown("old")])
        assertTerminalSafe(try vault.run([], unlock: false), shows: [Hostile.shown("old")])
    }

    /// Another device's name, chosen by whoever holds it: `device rename` and `device list` show
    /// it escaped, and so does an error that echoes a device name typed.
    func testDeviceNamesShowEscapes() throws {
        let laptop = try makeVault()
        let account = try signUp(laptop)
        let desktop = try join(laptop, account)
        let renamed = try desktop.run(["device", "rename", Hostile.text("device")], unlock: false)
        assertOK(renamed)
        assertTerminalSafe(renamed, shows: [Hostile.shown("device")])
        assertOK(try desktop.run(["sync", "--unlock"]))
        assertOK(try laptop.run(["sync", "--unlock"]))

        let listed = try laptop.run(["device", "list"])
        assertOK(listed)
        assertTerminalSafe(listed, shows: [Hostile.shown("device")])
        let json = try laptop.run(["device", "list", "--json"])
        assertTerminalSafe(json)
        let devices = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        XCTAssertTrue(devices.contains { $0["name"] as? String == Hostile.text("device") }, "\(devices)")

        let unknown = try laptop.run(["device", "lock", "no\u{1B}]0;SUCH\u{07}"])
        assertError(unknown, 1)
        assertTerminalSafe(unknown, shows: ["no\\e]0;SUCH\\a"])
    }

    private func lastErrorMessage(of vault: TestVault) throws -> String {
        try DatabaseQueue(path: vault.path).read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'last_error_message'") ?? ""
        }
    }

    private func setLastErrorMessage(of vault: TestVault, to message: String) throws {
        try DatabaseQueue(path: vault.path).write { db in
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'last_error_message'", arguments: [message])
        }
    }
}
