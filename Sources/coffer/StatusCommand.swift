import ArgumentParser
import CofferCore
import CofferTUI
import Foundation

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Counts, pending changes, conflicts and the last sync (no passphrase needed).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let path = global.vaultPath
        let status = try Vault.open(at: path).database.status()
        let agent = try? AgentVault.status(vaultPath: path)
        if output.json {
            let object: [String: Any] = [
                "locked": agent == nil, "agent": agent.map(Self.json) as Any? ?? NSNull(), "items": status.items, "pending": status.pending, "conflicts": status.conflicts,
                "lastSync": status.lastSync as Any? ?? NSNull(), "lastError": status.lastError as Any? ?? NSNull(),
                "account": status.account as Any? ?? NSNull(),
                "clockSkewMs": status.clockSkewMs as Any? ?? NSNull(),
            ]
            print(try ItemExchange.text(object))
        } else {
            print(Self.describe(status, path: path, agent: agent))
        }
    }

    static func json(_ agent: AgentStatus) -> [String: Any] {
        ["pid": agent.pid, "idleSeconds": agent.idleSeconds, "locksInSeconds": agent.locksInSeconds as Any? ?? NSNull()]
    }

    static func describe(_ status: VaultStatus, path: String, agent: AgentStatus? = nil) -> String {
        var lines = [
            "vault      \(path) " + (agent == nil ? "🔒" : "🔓"),
            "items      \(status.items)",
            "pending    \(status.pending) local change(s) not yet synced",
            "conflicts  \(status.conflicts) waiting for unlock",
        ]
        lines.append("agent      " + (agent.map { agent in
            "unlocked (pid \(agent.pid)" + (agent.locksInSeconds.map { ", locks in \(Format.duration($0))" } ?? "") + ")"
        } ?? "none (commands ask for the passphrase; `coffer unlock` starts one)"))
        if status.unreviewed > 0 { lines.append("merged     \(status.unreviewed) not yet reviewed") }
        lines.append("account    " + (status.account.map { "\($0) at \(status.server ?? "?")" } ?? "none (local only)"))
        lines.append("last sync  " + (status.lastSync ?? "never"))
        if let error = status.lastError {
            lines.append("last error \(error)" + (status.lastErrorMessage.map { ": \($0)" } ?? ""))
        }
        if let until = status.backoffUntil { lines.append("backoff    until \(until)") }
        if let warning = status.clockWarning { lines.append("clock      \(warning.dropFirst("clock ".count))") }
        return lines.joined(separator: "\n")
    }
}
