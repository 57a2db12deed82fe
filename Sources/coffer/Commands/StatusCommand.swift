import ArgumentParser
import CofferAgent
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
                "locked": agent == nil, "agent": agent.map(Self.json) as Any? ?? NSNull(), "items": status.items, "pending": status.pending,
                "pendingVaultRecords": status.pendingVaultRecords, "conflicts": status.conflicts,
                "lastSync": status.lastSync as Any? ?? NSNull(), "lastError": status.lastError as Any? ?? NSNull(),
                "account": status.account as Any? ?? NSNull(),
                "recoveryKit": status.hasRecoveryKit ?? false, "notCoveredByKit": status.notCoveredByKit,
                "clockSkewMs": status.clockSkewMs as Any? ?? NSNull(),
            ]
            Output.line(try ItemExchange.text(object))
        } else {
            Output.line(Self.describe(status, path: path, agent: agent))
        }
    }

    static func json(_ agent: AgentStatus) -> [String: Any] {
        ["pid": agent.pid, "idleSeconds": agent.idleSeconds, "locksInSeconds": agent.locksInSeconds as Any? ?? NSNull()]
    }

    /// The text form. What the server said (the last error, stored sanitised since, raw by older
    /// versions) and the account's names go through `TerminalText`.
    static func describe(_ status: VaultStatus, path: String, agent: AgentStatus? = nil) -> String {
        let line = TerminalText.line
        var lines = [
            "vault      \(line(path)) " + (agent == nil ? "🔒" : "🔓"),
            "items      \(status.items)",
            "pending    \(status.pending) item change(s) not yet synced"
                + (status.pendingVaultRecords > 0 ? ", and \(status.pendingVaultRecords) of the vault's keys, devices or members" : ""),
            "conflicts  \(status.conflicts) waiting for unlock",
        ]
        lines.append("agent      " + (agent.map { agent in
            "unlocked (pid \(agent.pid)" + (agent.locksInSeconds.map { ", locks in \(Format.duration($0))" } ?? "") + ")"
        } ?? "none (commands ask for the passphrase; `coffer unlock` starts one)"))
        if status.unreviewed > 0 { lines.append("merged     \(status.unreviewed) not yet reviewed") }
        lines.append("account    " + (status.account.map { "\(line($0)) at \(line(status.server ?? "?"))" } ?? "none (local only)"))
        lines.append("last sync  " + (status.lastSync.map(line) ?? "never"))
        if let error = status.lastError {
            lines.append("last error \(line(error))" + (status.lastErrorMessage.map { ": \(TerminalText.message($0))" } ?? ""))
        }
        if status.notCoveredByKit > 0 {
            lines.append("recovery   the kit cannot bring back the \(status.notCoveredByKit) item change(s) not on the server yet: sync to cover them")
        }
        if let until = status.backoffUntil { lines.append("backoff    until \(line(until))") }
        if let warning = status.clockWarning { lines.append("clock      \(warning.dropFirst("clock ".count))") }
        return lines.joined(separator: "\n")
    }
}
