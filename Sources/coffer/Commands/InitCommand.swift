import ArgumentParser
import CofferCore
import Foundation

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "init", abstract: "Create a vault.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var kdf: KDFOptions

    func run() async throws {
        let path = global.vaultPath
        if FileManager.default.fileExists(atPath: path) { throw CoreError.vaultExists(path: path) }
        let passphrase = try PassphraseInput.readNew(file: global.passphraseFile, prompt: "New passphrase for \(path): ")
        let parameters = try kdf.parameters()
        let start = Date()
        _ = try Vault.create(at: path, passphrase: passphrase, kdf: parameters)
        let seconds = String(format: "%.2f", Date().timeIntervalSince(start))
        Terminal.write("Created \(path) (Argon2id \(parameters.memory / 1_048_576) MiB, \(parameters.iterations) iterations: "
            + "\(seconds) s to unlock).\n")
    }
}

/// Argon2id parameters for a new passphrase: calibrated to about 0.5 s unless given.
struct KDFOptions: ParsableArguments {
    @Option(help: "Argon2id memory in MiB (at least 64; default: calibrated to about 0.5 s).")
    var kdfMemory: Int?

    @Option(help: "Argon2id iterations (at least 3; default: calibrated).")
    var kdfIterations: Int?

    func parameters() throws -> KDFParameters {
        if kdfMemory == nil && kdfIterations == nil { return Argon2id.calibrate() }
        let parameters = KDFParameters.fresh(memory: (kdfMemory ?? 64) * 1_048_576,
                                             iterations: kdfIterations ?? KDFParameters.minimumIterations)
        try parameters.checkStrength()
        return parameters
    }
}
