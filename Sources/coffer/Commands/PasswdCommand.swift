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
