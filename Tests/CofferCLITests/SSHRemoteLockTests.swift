import Foundation
import XCTest

/// Issue 32: a remote lock reaches the SSH keys like the rest, with the real Kinto and OpenSSH.
/// Run with `Resources/scripts/with-kinto.sh swift test --skip-build --filter SyncCommandTests/testARemoteLock`.
extension SyncCommandTests {
    /// A key made on the laptop syncs to the phone, whose agent logs into a loopback sshd with it;
    /// the laptop locks the phone: within the phone agent's sync interval `ssh-add -l` finds no
    /// keys and ssh is refused; after `coffer unlock` it works again.
    func testARemoteLockTakesTheSSHKeysAwayUntilTheNextUnlock() throws {
        let laptop = try makeVault()
        let account = try signUp(laptop)
        let phone = try join(laptop, account)
        for (vault, name) in [(laptop, "laptop"), (phone, "phone")] {
            assertOK(try vault.run(["device", "rename", name], unlock: false))
            assertOK(try vault.run(["sync", "--unlock"]))
        }
        let line = try laptop.ok(["ssh", "generate", "deploy", "--type", "ecdsa"]).line
        assertOK(try laptop.run(["sync"]))
        assertOK(try phone.run(["sync"]))
        assertOK(try phone.run(["unlock", "--sync-every", "1"]))
        let agent = try XCTUnwrap(try AgentProbe.pid(phone))
        defer { kill(agent, SIGKILL) }
        let tools = OpenSSHTools(socket: try phone.ok(["ssh", "socket"]).line, work: phone.work)
        let server = try LoopbackSSHD(directory: phone.root.appendingPathComponent("sshd"), authorizedKeys: [line])
        defer { server.stop() }
        let before = try server.ssh(tools, "echo before-the-lock")
        XCTAssertEqual(before.status, 0, before.errorText)
        XCTAssertEqual(before.outputText, "before-the-lock\n")

        let locking = try laptop.run(["device", "lock", "phone"])
        assertOK(locking)
        AgentProbe.waitUntilGone(agent, seconds: 20)
        let listed = try tools.listed()
        XCTAssertNotEqual(listed.status, 0, listed.lines.joined(separator: "\n"))
        XCTAssertEqual(listed.lines, [])
        let refused = try server.ssh(tools, "echo after-the-lock")
        XCTAssertEqual(refused.status, 255, refused.outputText)
        XCTAssertFalse(refused.outputText.contains("after-the-lock"))

        assertOK(try phone.run(["unlock", "--sync-every", "0"]))
        let again = try XCTUnwrap(try AgentProbe.pid(phone))
        defer { kill(again, SIGKILL) }
        let after = try server.ssh(tools, "echo unlocked-again")
        XCTAssertEqual(after.status, 0, after.errorText)
        XCTAssertEqual(after.outputText, "unlocked-again\n")
    }
}
