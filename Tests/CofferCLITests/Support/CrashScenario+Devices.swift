import CofferCore
import Foundation
import XCTest

// The crash points of the device registry, of `join` and of the agent: what the crasher does
// around the crash, and what must hold once every device recovered.
extension CrashScenario {
    /// An acknowledged rename: the crashed `device list` then publishes it (`sync.devices.*`).
    func renameBeforeCrash(_ crasher: CrashDevice) throws {
        let name = "renamed \(crasher.name) \(random.word())"
        try crasher.ok(["device", "rename", name], "device rename")
        renamedTo = name
    }

    /// After recovery: the server holds one record per device, and the other device lists the
    /// crasher under the name its acknowledged rename gave it.
    func checkDeviceRecords() throws {
        let ids = try Set([a!, b!].map(DeviceMessageCheck.deviceID(of:)))
        let onServer = try CrashServer.recordIDs(server: server, user: user, password: accountPassword, collection: "devices")
        if Set(onServer) != ids || onServer.count != ids.count {
            problems.append("the server's device records \(onServer.sorted()) are not one for each of A and B \(ids.sorted())")
        }
        let other = otherDevice(than: crasher)
        let listed = try other.ok(["device", "list", "--json"], "device list")
        let devices = try XCTUnwrap(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]])
        let crasherID = try DeviceMessageCheck.deviceID(of: crasher)
        let name = devices.first { $0["id"] as? String == crasherID }?["name"] as? String
        if name != renamedTo {
            problems.append("\(other.name) lists \(crasher.name) as \(name ?? "nothing"), not \(renamedTo ?? "?") (its acknowledged rename)")
        }
    }

    /// `join` died once its file was in place: the vault opens and already has its sync account
    /// (the recovery syncs then show it works).
    func afterCrashedJoin(_ device: CrashDevice) throws {
        let status = try device.run(["status", "--json"])
        guard status.status == 0, let object = try? JSONSerialization.jsonObject(with: status.stdout) as? [String: Any] else {
            problems.append("after the crash \(device.name)'s joined vault does not open: \(status.summary)")
            throw HarnessError("cannot continue without \(device.name)")
        }
        if object["account"] is NSNull || object["account"] == nil {
            problems.append("after the crash \(device.name)'s joined vault has no sync account")
            outcome = "a joined vault without its account"
        } else {
            outcome = "a joined vault with its account"
        }
        // The crashed join never ran its first sync: the person runs one (the items arrive with it).
        let synced = try device.unlocked(["sync", "--unlock"])
        if synced.status != 0 {
            problems.append("the first sync of \(device.name)'s joined vault after the crash failed: \(synced.summary)")
            throw HarnessError("cannot continue without \(device.name)")
        }
    }

    /// The `agent.*` points: an agent armed with the point makes the edit for a command that gave
    /// no passphrase, and dies between its commit and its answer. The command must not report
    /// success; a new agent must start over the dead one's socket and lock again.
    func crashInAgent(_ crasher: CrashDevice, _ arguments: [String]) throws {
        // No periodic sync: the crasher's edits stay pending, as the scenario's model expects.
        let unlock = try crasher.run(["unlock", "--sync-every", "0"], passphrase: crasher.passphrase, crash: point)
        guard unlock.status == 0 else { throw HarnessError("unlock on \(crasher.name) failed: \(unlock.summary)") }
        let pid = try agentPID(crasher)
        let result = try crasher.run(arguments)
        if result.status == 0 {
            problems.append("`\(arguments[0])` through the agent succeeded though the agent died before answering")
        }
        if let pid {
            let deadline = Date().addingTimeInterval(10)
            while AgentProbe.isRunning(pid) && Date() < deadline { usleep(20_000) }
            if AgentProbe.isRunning(pid) {
                kill(pid, SIGKILL)
                throw HarnessError("harness bug: \(point) was not reached in the agent (it still runs): \(result.summary)")
            }
        } else {
            throw HarnessError("harness bug: no agent after `unlock` on \(crasher.name)")
        }
        let again = try crasher.run(["unlock", "--sync-every", "0"], passphrase: crasher.passphrase)
        if again.status != 0 {
            problems.append("`unlock` after the agent died failed: \(again.summary)")
            return
        }
        let newPID = try agentPID(crasher)
        let locked = try crasher.run(["lock"])
        if locked.status != 0 {
            problems.append("`lock` of the new agent failed: \(locked.summary)")
            if let newPID { kill(newPID, SIGKILL) }
        }
    }

    private func agentPID(_ device: CrashDevice) throws -> pid_t? {
        guard let agent = try device.status()["agent"] as? [String: Any] else { return nil }
        return (agent["pid"] as? Int).map(pid_t.init)
    }
}
