import ArgumentParser
import CofferAgent
import CofferCore
import CofferSync
import Foundation

/// Options every command accepts: which vault, and where the passphrase comes from.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The vault file (default: $COFFER_VAULT, else config.toml's vault, else $XDG_DATA_HOME/coffer/vault.db), or a shared vault's name.")
    var vault: String?

    @Option(name: .long, help: "Read the passphrase from the first line of this file.")
    var passphraseFile: String?

    /// `--vault` as given, or a shared vault's name (`--vault NAME`: `NAME.db` beside the personal
    /// vault, architecture §17) when it is a bare name and no file of that name is here.
    var vaultPath: String {
        guard let vault else { return Self.defaultVaultPath }
        if SharedVaultName.isValid(vault), !FileManager.default.fileExists(atPath: vault) {
            return SharedVaultName.path(of: vault, besidePersonalVault: Self.defaultVaultPath)
        }
        return vault
    }

    /// `$COFFER_VAULT`, else `config.toml`'s `vault`, else the XDG data directory's (`ConfigPrecedence`).
    static var defaultVaultPath: String {
        ConfigPrecedence.defaultVaultPath(environment: ProcessInfo.processInfo.environment, config: Configuration.current.file)
    }

    var passphraseInput: PassphraseInput { PassphraseInput(file: passphraseFile) }

    /// The vault for item commands: through the agent when one holds it unlocked (no passphrase,
    /// no key derivation), else unlocked here like `unlockedVault()`.
    func itemVault() async throws -> any ItemVault {
        if let agent = agent() { return agent }
        return try await unlockedVault()
    }

    /// The agent holding this vault unlocked, for a command that can do without it (it then asks
    /// for the passphrase): nil when none runs; an unsafe socket is reported on stderr and passed over.
    func agent() -> AgentVault? {
        do {
            return try AgentVault.connect(vaultPath: vaultPath)
        } catch {
            Terminal.write("\(error)\n")
            return nil
        }
    }

    /// Opens the vault and unlocks it with the passphrase from the file, stdin or the terminal.
    func unlockedVault() async throws -> Vault {
        let vault = try Vault.open(at: vaultPath)
        let passphrase = try passphraseInput.read(prompt: "Passphrase for \(vaultPath): ")
        try await vault.unlock(passphrase: passphrase)
        return vault
    }
}

extension GlobalOptions {
    /// The options as given, for a command line read by hand (`HandReadOptions`).
    static func given(vault: String?, passphraseFile: String?) -> GlobalOptions {
        var options = GlobalOptions()
        options.vault = vault
        options.passphraseFile = passphraseFile
        return options
    }
}

/// `--json` for commands that print items.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON.")
    var json = false
}
