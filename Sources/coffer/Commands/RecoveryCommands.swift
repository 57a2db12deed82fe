import ArgumentParser
import CofferCore
import CofferSync
import Foundation

/// `coffer recovery-kit`: a code and the server that bring the vault back on a new machine when
/// every device and the passphrase are lost (`RecoveryKit`): a personal vault's account and key,
/// or a shared vault's member who made it (`SharedRecoveryPayload`).
struct RecoveryKitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery-kit",
        abstract: "Print (or write, 0600) a recovery kit: with it, `coffer recover` brings this vault back on a new machine.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Write the kit to this file (0600; never over an existing file).") var output: String?
    @Flag(help: "Make a new kit and void the one made before.") var rotate = false

    func run() async throws {
        let vault = try Vault.open(at: global.vaultPath)
        let shared = vault.sharedVaultID != nil
        guard let firstAccount = try SyncAccount.load(from: vault.database) else {
            throw UsageError(shared ? "You left this shared vault: a kit of it would open nothing."
                             : "A recovery kit restores from the server: set a sync account first (`coffer account signup`).")
        }
        let previous = try vault.database.meta(.recoveryAccount)
        if previous != nil, !rotate {
            throw UsageError("This vault has a recovery kit already; `--rotate` makes a new one and voids the old.")
        }
        if let output, FileManager.default.fileExists(atPath: output) { throw UsageError("\(output) exists; the kit is not written over it.") }
        let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
        if !shared { try await vault.unlock(passphrase: passphrase) }
        try await Self.sendChangesFirst(vault)
        // The sync may have taken the account's next password (`device rm --rotate` elsewhere).
        let account = try SyncAccount.load(from: vault.database) ?? firstAccount
        let code = RecoveryCode.random()
        let keys = try RecoveryKeys(code: code)
        let sealed: String
        var sharedName: String?
        if shared {
            let member = ShareMember(vault: vault, account: account)
            sealed = try keys.seal(try await member.recoveryPayload(passphrase: passphrase))
            sharedName = member.name
        } else {
            sealed = try keys.seal(RecoveryPayload(server: account.server.absoluteString, user: account.user,
                                                   password: account.password, vaultKey: try await vault.vaultKeyForRecovery()))
        }
        try await AccountOptions.mapped { try await RecoveryStore.publish(sealed, keys: keys, server: account.server) }
        try vault.database.setMeta(.recoveryAccount, "\(keys.accountName) \(keys.accountPassword)")
        // The old kit goes only once the new one is on the server.
        if let previous, case let parts = previous.split(separator: " "), parts.count == 2 {
            try await AccountOptions.mapped {
                try await RecoveryStore.remove(user: String(parts[0]), password: String(parts[1]), server: account.server)
            }
        }
        let kit = RecoveryKit(server: account.server, code: code, sharedVault: sharedName)
        guard let output else { return Output.rawLine(kit.text) }
        try Self.writePrivate(Data(kit.text.utf8), to: output)
        Terminal.write("Recovery kit written to \(output) (readable by you only)\(previous == nil ? "" : "; the old kit opens nothing now").\n")
    }

    /// A kit restores what the server holds (issue 49: a kit made beside unsent changes brought
    /// back a vault without them, and said nothing): this device's changes are sent first — an
    /// unlocked personal vault also merges — and any a sync could not send (offline, a Backoff,
    /// conflicts waiting) are counted in one sentence. The kit is made either way; `coffer status`
    /// repeats the count while it holds.
    static func sendChangesFirst(_ vault: Vault) async throws {
        guard let engine = try SyncEngine.forAccount(of: vault) else { return }
        let report = await engine.sync(progress: SyncProgressPrinter.make())
        let left = try vault.database.status()
        let why = report.message.map { " (\(TerminalText.message($0)))" } ?? ""
        if left.pending > 0 {
            Terminal.write("\(left.pending) item change(s) are not on the server yet\(why): this kit cannot bring them back until a sync sends them.\n")
        } else if left.pendingVaultRecords > 0 {
            Terminal.write("The vault's keys or devices changed here are not on the server yet\(why): sync before you rely on this kit.\n")
        }
    }

    /// Creates `path` 0600, refusing one that exists.
    static func writePrivate(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw UsageError("\(path) cannot be created (\(String(cString: strerror(errno)))).") }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(descriptor) == 0 else { throw UsageError("\(path) could not be written whole.") }
    }
}

/// `coffer recover`: a new vault file from a recovery kit, synced: a personal vault under a new
/// passphrase, or a shared vault's member's copy beside the personal vault.
struct RecoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Bring a vault back from its recovery kit: a personal vault under a new passphrase (as `init` takes one), "
            + "a shared vault's copy beside it (you a member again).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The kit's file (`coffer recovery-kit --output`).") var kitFile: String?
    @Option(help: "The kit's server, with --code instead of a file.") var server: String?
    @Option(help: "The kit's code, with --server.") var code: String?
    @OptionGroup var kdf: KDFOptions

    func run() async throws {
        let kit = try readKit()
        KintoClient.preloadTransport()
        let keys = try RecoveryKeys(code: kit.code)
        guard let sealed = try await AccountOptions.mapped({ try await RecoveryStore.fetch(keys: keys, server: kit.server) }) else {
            throw SyncFailure(name: .syncAuth, description: "The server knows no recovery kit with this code: it was voided by "
                              + "`recovery-kit --rotate`, or made on another server.")
        }
        // The kit used is the vault's kit from then on: `recovery-kit --rotate` voids it.
        let kitAccount = "\(keys.accountName) \(keys.accountPassword)"
        switch try keys.openKit(sealed) {
        case .personal(let payload): try await recoverPersonal(payload, kitAccount: kitAccount)
        case .shared(let payload): try await recoverShared(payload, kitAccount: kitAccount)
        }
    }

    private func recoverPersonal(_ payload: RecoveryPayload, kitAccount: String) async throws {
        let path = global.vaultPath
        if FileManager.default.fileExists(atPath: path) { throw CoreError.vaultExists(path: path) }
        guard let server = SyncAccount.normalizedServer(payload.server) else { throw RecoveryKeys.Unreadable() }
        let account = SyncAccount(server: server, user: payload.user, password: payload.password)
        let client = KintoClient(server: account.server, credentials: account.credentials)
        let fetched: KeystoreRecord?
        do {
            fetched = try await AccountOptions.mapped { try await client.keystore() }
        } catch let failure as SyncFailure where failure.name == .syncAuth {
            throw SyncFailure(name: .syncAuth, description: "The server refuses the account this kit names: its password changed "
                              + "after the kit was made (`device rm --rotate`), or the account is gone. A kit made since restores it.")
        }
        guard let keystore = fetched else {
            throw KintoError.network(message: "The account \(account.user) holds no vault on the server: nothing to recover.")
        }
        let passphrase = try PassphraseInput.readNew(file: global.passphraseFile, prompt: "New passphrase for \(path): ")
        let vault = try Vault.recover(at: path, keystore: keystore, vaultKey: payload.vaultKey, passphrase: passphrase,
                                      kdf: try kdf.parameters(), meta: account.meta.merging([.recoveryAccount: kitAccount]) { $1 })
        CrashPoint.reach("recover.after-file")
        let report = await SyncEngine(vault: vault, client: client).sync(progress: SyncProgressPrinter.make())
        try SyncOutcomePrinter.finish(report)
        Terminal.write("Recovered: \(path) holds \(try vault.database.status().items) item(s); the new passphrase opens it, "
                       + "and your other devices take it at their next sync.\n")
    }

    /// A shared vault's kit makes its member's copy again beside the personal vault, which must
    /// be here already (recovered with its own kit): its passphrase and account are the member's.
    /// Run on the personal vault (as `share join`), or with `--vault NAME`, the shared vault's name.
    private func recoverShared(_ payload: SharedRecoveryPayload, kitAccount: String) async throws {
        var personalPath = global.vaultPath
        if let named = global.vault, SharedVaultName.isValid(named), !FileManager.default.fileExists(atPath: named) {
            guard named == payload.name else {
                throw UsageError("This kit is of the shared vault \u{201C}\(payload.name)\u{201D}: run `coffer --vault \(payload.name) recover`.")
            }
            personalPath = GlobalOptions.defaultVaultPath
        }
        let path = SharedVaultName.path(of: payload.name, besidePersonalVault: personalPath)
        if FileManager.default.fileExists(atPath: path) { throw CoreError.vaultExists(path: path) }
        guard FileManager.default.fileExists(atPath: personalPath) else {
            if (personalPath as NSString).lastPathComponent == "\(payload.name).db" {
                throw UsageError("Run it on your personal vault (`--vault PERSONAL`, or `--vault \(payload.name)` for the default "
                                 + "one): the copy of \u{201C}\(payload.name)\u{201D} goes beside it.")
            }
            throw UsageError("This kit is of the shared vault \u{201C}\(payload.name)\u{201D}, which opens with your personal "
                             + "vault's passphrase: bring \(personalPath) back first (`coffer recover` with its own kit).")
        }
        let member = try ShareMember.personal(GlobalOptions.given(vault: personalPath, passphraseFile: global.passphraseFile))
        let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(personalPath): ")
        let vault = try await member.recoverCopy(from: payload, at: path, passphrase: passphrase)
        try vault.database.setMeta(.recoveryAccount, kitAccount)
        Terminal.write("Recovered: \(path) holds \(try vault.database.status().items) item(s) of \u{201C}\(payload.name)\u{201D}; "
                       + "you are a member again, and `--vault \(payload.name)` opens it with your personal passphrase.\n")
    }

    private func readKit() throws -> RecoveryKit {
        if let kitFile {
            guard server == nil, code == nil else { throw UsageError("Give the kit's file, or --server and --code, not both.") }
            let data: Data
            do {
                data = try InputFile.read(kitFile, limit: 65_536, isSecret: true)
            } catch {
                // The problem's own name (`tooLarge(size:limit:)`) means nothing to the user: say it.
                throw CommandFailure("The kit file \(InputFile.reason(error, path: kitFile)).")
            }
            return try RecoveryKit(parsing: String(decoding: data, as: UTF8.self))
        }
        guard let server, let code else { throw UsageError("Give the kit's file (--kit-file), or its --server and --code.") }
        return try RecoveryKit(parsing: "server: \(server)\ncode: \(code)")
    }
}
