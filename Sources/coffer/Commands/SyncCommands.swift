import ArgumentParser
import CofferAgent
import CofferCore
import CofferSync
import Foundation

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync once (through the agent when one holds the vault). Without --unlock or an agent, items changed on two devices wait (exit 12).")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Unlock first, so conflicts are merged.") var unlock = false

    func run() async throws {
        KintoClient.preloadTransport()
        if let agent = global.agent() {
            // The agent holds the keys and the vault open: one round trip on its socket instead of
            // opening both here (a timer's `coffer sync` beside it), and what changed on two devices
            // is merged, with or without `--unlock` (issue 48).
            try SyncOutcomePrinter.finish(try agent.sync())
            return
        }
        let vault = unlock ? try await global.unlockedVault() : try Vault.open(at: global.vaultPath)
        guard let engine = try SyncEngine.forAccount(of: vault) else {
            throw DeviceSession.noAccount
        }
        let report = await engine.sync(progress: SyncProgressPrinter.make())
        try SyncOutcomePrinter.finish(report)
    }
}

extension SyncCommand {
    /// `coffer sync [--vault PATH] [--passphrase-file FILE] [--unlock]` (the vault options may also
    /// come first), the command a timer runs, read by hand (`HandReadOptions`); nil for anything
    /// else, which the full parse takes.
    /// A factory, not an init: inside an init, `unlock = …` would make a new, unparsed `@Flag`.
    static func handReading(_ arguments: [String]) -> SyncCommand? {
        guard let read = HandReadOptions(arguments[...], command: "sync", options: ["--vault", "--passphrase-file"],
                                         flags: ["--unlock"])
        else { return nil }
        var command = SyncCommand()
        command.global = GlobalOptions.given(vault: read.values["--vault"], passphraseFile: read.values["--passphrase-file"])
        command.unlock = read.flags.contains("--unlock")
        return command
    }
}

/// Turns a sync report into the command's result: a summary line, or the error's exit code.
enum SyncOutcomePrinter {
    static func finish(_ report: SyncReport) throws {
        try finish(SyncOutcome(report))
    }

    static func finish(_ report: SyncOutcome) throws {
        if let warning = report.clockWarning {
            Terminal.write("This device's \(warning): the times it writes use the server's clock.\n")
        }
        if let error = report.error {
            // The message may quote the server (made safe where it was read; again here, for an agent's).
            let message = TerminalText.message(report.message ?? error.rawValue)
            if error == .disk { throw CommandFailure(message) }
            throw SyncFailure(name: error, description: message)
        }
        Terminal.write("Synced: \(report.downloaded) received, \(report.uploaded) sent, \(report.merged) merged.\n")
    }
}

/// Progress on stderr, only when it is a terminal.
enum SyncProgressPrinter {
    static func make() -> @Sendable (SyncProgress) -> Void {
        guard isatty(STDERR_FILENO) != 0 else { return { _ in } }
        return { progress in
            guard progress.total > 0 else { return }
            Terminal.writeRaw("\r\(progress.step.rawValue) \(progress.collection): \(progress.done)/\(progress.total)\u{1B}[K")
            if progress.done == progress.total { Terminal.write("\n") }
        }
    }
}

struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join", abstract: "Create this device's vault from one already on the server (an account, or a code from `coffer device invite`).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The Kinto server, e.g. http://127.0.0.1:8888/v1.") var server: String
    @Option(help: "The account name.") var user: String?
    @Option(help: "Read the account password from this file.") var passwordFile: String?
    @Option(help: "A one-time code from `coffer device invite` on a device of the vault (instead of --user).") var code: String?
    @Option(help: "This device's name, as the other devices show it.") var name: String = Vault.defaultDeviceName

    func run() async throws {
        guard (user == nil) != (code == nil) else {
            throw UsageError("Give either --user (with the account password) or --code (from `coffer device invite`).")
        }
        KintoClient.preloadTransport()
        let path = global.vaultPath
        if FileManager.default.fileExists(atPath: path) { throw CoreError.vaultExists(path: path) }
        let account: SyncAccount
        if let code {
            account = try await Self.accountFromInvitation(code: code, server: server, name: name)
        } else {
            account = try AccountOptions.account(server: server, user: user ?? "", passwordFile: passwordFile)
        }
        let client = KintoClient(server: account.server, credentials: account.credentials)
        _ = try await AccountOptions.mapped { try await client.checkCredentials() }
        guard let keystore = try await AccountOptions.mapped({ try await client.keystore() }) else {
            throw UsageError("The account \(account.user) holds no vault yet; create one with `coffer init`, then `coffer account login`.")
        }
        // The items download (ciphertext) while the passphrase is typed and its key derived.
        await client.prefetchChanges(collection: .items, since: nil)
        let passphrase = try global.passphraseInput.read(prompt: "Passphrase of the vault on \(account.server.host ?? "the server"): ")
        // The account goes in with the file: saved after it, a crash between left a vault that
        // could never sync (with --code, its password was known nowhere else on this device).
        let vault = try Vault.join(at: path, keystore: keystore, passphrase: passphrase, deviceName: name, meta: account.meta)
        CrashPoint.reach("vault.join.after-link")
        let engine = SyncEngine(vault: vault, client: client)
        let report = await engine.sync(progress: SyncProgressPrinter.make())
        try SyncOutcomePrinter.finish(report)
        Terminal.write("Joined: \(path) now holds \(try vault.database.status().items) item(s).\n")
    }

    /// Claims the invitation, asks whether the inviting device shows the same number, and (after a
    /// yes) waits for it to allow this one: the sync account arrives sealed to this device's key.
    /// The passphrase never travels.
    static func accountFromInvitation(code text: String, server: String, name: String) async throws -> SyncAccount {
        let code = try InvitationCode(parsing: text)  // a typo stops here, before any request
        let url = try AccountOptions.serverURL(server)
        InvitationPrompt.sayClaiming()
        let guest = try await AccountOptions.mapped { try await InvitationGuest.claim(server: url, code: code, kind: .device, name: name) }
        let payload = try await InvitationPrompt.acceptAnswer(of: guest, asking: "does the other device show this number?")
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: String],
              let serverText = object["server"], let accountServer = URL(string: serverText),
              let user = object["user"], let password = object["password"] else {
            throw InvitationError.tampered
        }
        Terminal.write("Allowed: this device gets the sync account \(TerminalText.line(user)).\n")
        return SyncAccount(server: accountServer, user: user, password: password)
    }
}

struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account", abstract: "Set up, check or remove the vault's sync account.",
        subcommands: [Signup.self, Login.self, Logout.self, Status.self])

    struct Signup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an account on the server and sync with it.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: AccountOptions

        func run() async throws {
            let account = try options.account()
            let vault = try Vault.open(at: global.vaultPath)
            _ = try await AccountOptions.mapped {
                try await KintoClient.createAccount(server: account.server, user: account.user, password: account.password)
            }
            try await AccountOptions.attach(account, to: vault)
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sync with an existing account.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: AccountOptions

        func run() async throws {
            let account = try options.account()
            try await AccountOptions.attach(account, to: try Vault.open(at: global.vaultPath))
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop syncing (local items and changes stay).")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try SyncAccount.remove(from: try Vault.open(at: global.vaultPath).database)
            Terminal.write("Signed out; the vault stays on this device.\n")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the account and check it with the server.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let vault = try Vault.open(at: global.vaultPath)
            guard let account = try SyncAccount.load(from: vault.database) else {
                Output.line("No sync account.")
                return
            }
            Output.line("account  \(account.user)")
            Output.line("server   \(account.server.absoluteString)")
            let client = KintoClient(server: account.server, credentials: account.credentials)
            _ = try await AccountOptions.mapped { try await client.checkCredentials() }
            Output.line("check    ok")
        }
    }
}

/// `--server`, `--user`, `--password-file` for the account commands.
struct AccountOptions: ParsableArguments {
    @Option(help: "The Kinto server, e.g. http://127.0.0.1:8888/v1.") var server: String
    @Option(help: "The account name.") var user: String
    @Option(help: "Read the account password from this file.") var passwordFile: String?

    func account() throws -> SyncAccount {
        try Self.account(server: server, user: user, passwordFile: passwordFile)
    }

    static func account(server: String, user: String, passwordFile: String?) throws -> SyncAccount {
        let url = try serverURL(server)
        let secret = try PassphraseInput(file: passwordFile).read(prompt: "Password of account \(user): ")
        let password = secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        guard !password.isEmpty else { throw UsageError("The account password must not be empty.") }
        return SyncAccount(server: url, user: user, password: password)
    }

    /// A server address as typed (`http://host:8888` or `…/v1`), or a usage error.
    static func serverURL(_ text: String) throws -> URL {
        guard let url = SyncAccount.normalizedServer(text) else { throw UsageError("\(text) is not an http(s) server address.") }
        return url
    }

    /// Checks the credentials, refuses an account that holds another vault, saves the account and
    /// runs the first sync.
    static func attach(_ account: SyncAccount, to vault: Vault) async throws {
        let client = KintoClient(server: account.server, credentials: account.credentials)
        _ = try await mapped { try await client.checkCredentials() }
        if try !vault.hasSyncedKeystore() {
            let remote = try await mapped { try await client.fetchChanges(collection: .keystores, since: nil) }
            if case .changes(let records, _) = remote, !records.isEmpty {
                throw UsageError("The account \(account.user) already holds a vault; to use it on this device, "
                    + "run `coffer join` with a new vault path.")
            }
        }
        try account.save(to: vault.database)
        Terminal.write("Account \(account.user) set; syncing.\n")
        let report = await SyncEngine(vault: vault, client: client).sync(progress: SyncProgressPrinter.make())
        try SyncOutcomePrinter.finish(report)
    }

    /// Runs a server call, turning a `KintoError` into the command's sync failure (exit 10–13).
    static func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as KintoError {
            throw SyncFailure(name: SyncEngine.name(of: error), description: error.userMessage)
        }
    }
}
