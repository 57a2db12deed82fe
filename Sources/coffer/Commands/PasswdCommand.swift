import ArgumentParser
import CofferCore
import CofferSync
import Foundation

struct PasswdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Change the passphrase (the keystore is re-wrapped in one transaction); --new-keys also gives the vault new keys.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Read the new passphrase from the first line of this file.") var newPassphraseFile: String?
    @Flag(help: "Also give the vault new keys (what `device rm --rotate` does): a removed device's copy opens nothing written after, and what it writes is refused.")
    var newKeys = false
    @OptionGroup var kdf: KDFOptions

    func run() async throws {
        _ = try await Self.change(global, newPassphraseFile: newPassphraseFile, kdf: try kdf.parameters(), newKeys: newKeys)
    }

    /// Changes the passphrase of `global`'s vault (and with `newKeys`, its keys: architecture §9),
    /// then of the shared vaults beside it. An agent holding the vault is locked after new keys:
    /// its keys are the old ones. Returns the vault, unlocked with the new passphrase.
    static func change(_ global: GlobalOptions, newPassphraseFile: String?, kdf parameters: KDFParameters,
                       newKeys: Bool) async throws -> Vault {
        let vault = try Vault.open(at: global.vaultPath)
        if vault.sharedVaultID != nil {
            // Its keystore is wrapped under the vault's epoch key, which every member shares.
            throw UsageError("A shared vault opens with your personal vault's passphrase: run `coffer passwd` on that one.")
        }
        let old = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
        try await vault.unlock(passphrase: old)
        let passphrase = try PassphraseInput.readNew(file: newPassphraseFile, prompt: "New passphrase: ")
        if newKeys {
            // What the other devices sent is committed to as well (a version made with the old keys
            // and not committed is refused everywhere): fetched just before, the window is a sync's.
            if let engine = try SyncEngine.forAccount(of: vault) { _ = await engine.sync() }
            try await vault.rotateKeys(to: passphrase, kdf: parameters)
            if let agent = global.agent() { try? agent.lock() }
            Terminal.write("Passphrase and keys changed: every other device asks for the new passphrase at its next unlock.\n")
        } else {
            try await vault.changePassphrase(to: passphrase, kdf: parameters)
            Terminal.write("Passphrase changed.\n")
        }
        // The shared vaults beside it open with the new passphrase too.
        let shared = Vault.sharedVaultPaths(besidePersonalVault: vault.database.path)
        guard !shared.isEmpty else { return vault }
        let (keys, newKDF) = try vault.passphraseKeys(passphrase)
        for path in shared {
            let copy = try Vault.open(at: path)
            let name = (try? copy.database.meta(.shareName)).flatMap { $0 } ?? path
            if try copy.resealMemberSecrets(openedWith: old, under: keys, kdf: newKDF) {
                try await Self.republish(copy, named: name, sealedUnder: keys)
                Terminal.write("The shared vault \u{201C}\(TerminalText.name(name))\u{201D} opens with the new passphrase too.\n")
            } else {
                Terminal.write("The shared vault \u{201C}\(TerminalText.name(name))\u{201D} did not open with the old passphrase: left as it was.\n")
            }
        }
        return vault
    }

    /// The re-sealed member secrets go to the personal account's record too, where the person's
    /// other devices find them (`share join NAME`).
    private static func republish(_ copy: Vault, named name: String, sealedUnder keys: PassphraseKeys) async throws {
        guard let vaultID = copy.sharedVaultID, let member = try copy.database.meta(.shareMember),
              let account = try SyncAccount.load(from: copy.database) else { return }
        try await ShareMember(vault: copy, account: account).publish(vaultID, named: name, member: member, sealedUnder: keys)
    }
}
