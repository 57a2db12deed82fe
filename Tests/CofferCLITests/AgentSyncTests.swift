import Foundation
import XCTest

/// The agent beside sync, with the real Kinto: `sync` and `sync --unlock` through it, and a lock sent from
/// another device locking it (architecture §9, §12).
extension SyncCommandTests {
    func testSyncThroughTheAgentAndALockFromAnotherDeviceLocksIt() throws {
        let laptop = try makeVault()
        let account = try signUp(laptop)
        let phone = try join(laptop, account)
        for (vault, name) in [(laptop, "laptop"), (phone, "phone")] {
            assertOK(try vault.run(["device", "rename", name], unlock: false))
            assertOK(try vault.run(["sync", "--unlock"]))
        }
        assertOK(try phone.run(["unlock", "--sync-every", "0"]))
        let first = try XCTUnwrap(try AgentProbe.pid(phone))
        defer { kill(first, SIGKILL) }

        // The same item edited on both devices: the phone's `sync --unlock` asks for no passphrase
        // (the agent syncs) and merges.
        let id = try laptop.add("Shared", ["--username", "ann", "--password", "one"])
        assertOK(try laptop.run(["sync"], unlock: false))
        var synced = try phone.run(["sync", "--unlock"], unlock: false)
        assertOK(synced)
        XCTAssertTrue(synced.err.hasPrefix("Synced: 2 received"), synced.err) // the item and the keystore with its key
        XCTAssertEqual(try phone.run(["show", "shared", "--field", "username"], unlock: false).line, "ann")
        assertOK(try laptop.run(["edit", id, "--username", "ann@laptop"]))
        assertOK(try laptop.run(["sync"], unlock: false))
        assertOK(try phone.run(["edit", id, "--password", "two"], unlock: false))
        synced = try phone.run(["sync", "--unlock"], unlock: false)
        assertOK(synced)
        XCTAssertTrue(synced.err.contains("1 merged"), synced.err)
        XCTAssertEqual(try phone.run(["show", id, "--field", "username"], unlock: false).line, "ann@laptop")
        XCTAssertEqual(try phone.run(["show", id, "--field", "password"], unlock: false).line, "two")
        // A plain `sync` (what a timer runs) asks the agent too (issue 48): locked here, the same
        // conflict would wait (exit 12); through the agent it is merged, and no passphrase is asked.
        assertOK(try laptop.run(["sync", "--unlock"]))
        assertOK(try laptop.run(["edit", id, "--username", "ann@timer"]))
        assertOK(try laptop.run(["sync"], unlock: false))
        assertOK(try phone.run(["edit", id, "--password", "three"], unlock: false))
        synced = try phone.run(["sync"], unlock: false)
        assertOK(synced)
        XCTAssertTrue(synced.err.contains("1 merged"), synced.err)
        XCTAssertEqual(try phone.run(["show", id, "--field", "username"], unlock: false).line, "ann@timer")

        // The laptop locks the phone: the agent's own periodic sync (every second here) brings
        // the message, and the agent locks.
        assertOK(try phone.run(["lock"], unlock: false))
        AgentProbe.waitUntilGone(first)
        assertOK(try phone.run(["unlock", "--sync-every", "1"]))
        let agent = try XCTUnwrap(try AgentProbe.pid(phone))
        defer { kill(agent, SIGKILL) }
        // The laptop's device commands go through its own agent: no passphrase there either.
        assertOK(try laptop.run(["unlock", "--sync-every", "0"]))
        let laptopAgent = try XCTUnwrap(try AgentProbe.pid(laptop))
        defer { kill(laptopAgent, SIGKILL) }
        let devices = try laptop.run(["device", "list", "--json"], unlock: false)
        assertOK(devices)
        XCTAssertEqual(Set(try devices.jsonArray().compactMap { $0["name"] as? String }), ["laptop", "phone"])
        let locking = try laptop.run(["device", "lock", "phone"], unlock: false)
        assertOK(locking)
        XCTAssertTrue(locking.out.contains("Queued lock for phone"), locking.summary)
        assertOK(try laptop.run(["lock"], unlock: false))
        AgentProbe.waitUntilGone(agent, seconds: 20)
        XCTAssertNil(try AgentProbe.pid(phone))
        let asked = try phone.run(["show", id, "--field", "password"], unlock: false)
        XCTAssertEqual(asked.status, 1, asked.summary)
        XCTAssertTrue(asked.err.contains("No passphrase was given"), asked.summary)

        // Unlocked again after that lock: the old message does not lock the new agent; a new one
        // handled by `sync --unlock` through the agent does.
        assertOK(try phone.run(["unlock", "--sync-every", "0"]))
        let second = try XCTUnwrap(try AgentProbe.pid(phone))
        defer { kill(second, SIGKILL) }
        assertOK(try phone.run(["sync", "--unlock"], unlock: false))
        sleep(2)
        XCTAssertTrue(AgentProbe.isRunning(second), "a lock sent before this unlock locked it")
        assertOK(try laptop.run(["device", "lock", "phone"]))
        sleep(2)
        XCTAssertTrue(AgentProbe.isRunning(second), "without its periodic sync the agent cannot have heard the lock")
        assertOK(try phone.run(["sync", "--unlock"], unlock: false))
        AgentProbe.waitUntilGone(second)
    }
}
