import ArgumentParser
import CofferCore

struct PasswdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Change the passphrase (the keystore is re-wrapped in one transaction).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Read the new passphrase from the first line of this file.") var newPassphraseFile: String?
    @OptionGroup var kdf: KDFOptions

    func run() async throws {
        let vault = try await global.unlockedVault()
        let passphrase = try PassphraseInput.readNew(file: newPassphraseFile, prompt: "New passphrase: ")
        try await vault.changePassphrase(to: passphrase, kdf: try kdf.parameters())
        Terminal.write("Passphrase changed.\n")
    }
}

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Counts, pending changes, conflicts and the last sync (no passphrase needed).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let path = global.vaultPath
        let status = try Vault.open(at: path).database.status()
        if output.json {
            let object: [String: Any] = [
                "locked": true, "items": status.items, "pending": status.pending, "conflicts": status.conflicts,
                "lastSync": status.lastSync as Any? ?? NSNull(), "lastError": status.lastError as Any? ?? NSNull(),
                "account": status.account as Any? ?? NSNull(),
            ]
            print(try ItemExchange.text(object))
        } else {
            print(Self.describe(status, path: path))
        }
    }

    static func describe(_ status: VaultStatus, path: String) -> String {
        var lines = [
            "vault      \(path) 🔒",
            "items      \(status.items)",
            "pending    \(status.pending) local change(s) not yet synced",
            "conflicts  \(status.conflicts) waiting for unlock",
        ]
        if status.unreviewed > 0 { lines.append("merged     \(status.unreviewed) not yet reviewed") }
        lines.append("account    " + (status.account.map { "\($0) at \(status.server ?? "?")" } ?? "none (local only)"))
        lines.append("last sync  " + (status.lastSync ?? "never"))
        if let error = status.lastError {
            lines.append("last error \(error)" + (status.lastErrorMessage.map { ": \($0)" } ?? ""))
        }
        if let until = status.backoffUntil { lines.append("backoff    until \(until)") }
        return lines.joined(separator: "\n")
    }
}

import Foundation
