import ArgumentParser
import CofferCore
import Foundation

struct GitCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential",
        abstract: "A git credential helper: answers git's get, store and erase from the vault's logins.",
        discussion: "`git config --global credential.helper coffer` (with `git-credential-coffer`, which `make install` "
            + "puts beside coffer, on PATH). `get` answers with the login whose origin has git's protocol and host "
            + "exactly (a bare host means https) and, if the origin has a path, git's path below it (set "
            + "credential.useHttpPath true for those); a username git gives must be the login's. `store` and `erase` "
            + "change the vault only with --store in the helper line (credential.helper 'coffer --store'): store adds "
            + "a login tagged git-credential (or updates the password of one it added), erase removes one it added "
            + "whose password is the one git gives. Through the agent when one runs, else after the passphrase, asked "
            + "at the terminal.")

    /// Logins `store` made: the only ones `store` updates and `erase` removes.
    static let tag = "git-credential"

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Let git's store and erase add, update and remove logins (else they change nothing).") var store = false
    @Argument(help: ArgumentHelp("get, store or erase (git gives it; any other is ignored).", valueName: "action"))
    var action: String

    func run() async throws {
        // Read first, whatever the action: git writes its request and waits for it to be taken.
        let request = try Self.readRequest()
        guard let protocolName = request.protocolName, let host = request.host,
              let wanted = CredentialOrigin(protocolName: protocolName, host: host, path: request.path ?? "") else { return }
        switch action {
        case "get":
            try await answer(wanted, username: request.username)
        case "store" where store:
            guard let username = request.username, let password = request.password, !password.isEmpty else { return }
            try await keep(wanted, username: username, password: password)
        case "erase" where store:
            guard let username = request.username, let password = request.password else { return }
            try await erase(wanted, username: username, password: password)
        default:
            return
        }
    }

    private func answer(_ wanted: CredentialOrigin, username: String?) async throws {
        let vault = try await unlock()
        let matches = try await Self.logins(in: vault, serving: wanted, username: username)
        guard let best = matches.map(\.specificity).max() else { return }
        let closest = matches.filter { $0.specificity == best }.map(\.item)
        let distinct = Set(closest.map { [$0.entry.username, $0.entry.password] })
        guard distinct.count == 1, let login = closest.first else {
            Terminal.write("\(closest.count) logins match \(TerminalText.line(wanted.protocolName))://"
                + "\(TerminalText.line(wanted.host)); give one of them a path in its origin, or the username in git's URL.\n")
            throw ExitCode(ExitStatus.ambiguous)
        }
        guard let text = GitCredentialMessage.answer(username: login.entry.username, password: login.entry.password) else {
            throw CommandFailure("“\(TerminalText.line(login.title))” has a line break in its username or password, which git's "
                + "credential protocol cannot carry.")
        }
        Output.raw(Data(text.utf8))
    }

    private func keep(_ wanted: CredentialOrigin, username: String, password: String) async throws {
        let vault = try await unlock()
        let matches = try await Self.logins(in: vault, serving: wanted, username: username).map(\.item)
        if matches.contains(where: { $0.entry.password == password }) { return }
        if let own = matches.first(where: { Self.isOwn($0, at: wanted) }) {
            var changed = own
            changed.entry.password = password
            _ = try await vault.update(changed, from: own)
            return
        }
        let origin = "\(wanted.protocolName)://\(wanted.host)" + (wanted.path.isEmpty ? "" : "/\(wanted.path)")
        let item = Item(title: wanted.host + (wanted.path.isEmpty ? "" : "/\(wanted.path)"), origins: [origin], tags: [Self.tag],
                        entry: Entry(username: username, password: password), created: .now())
        _ = try await vault.add(item)
    }

    private func erase(_ wanted: CredentialOrigin, username: String, password: String) async throws {
        let vault = try await unlock()
        for item in try await Self.logins(in: vault, serving: wanted, username: username).map(\.item)
        where Self.isOwn(item, at: wanted) && item.entry.password == password {
            // To the trash, as `rm` (issue 43): git erases after any refusal, a server's passing
            // fault too, and a password should not be lost to that.
            var trashed = item
            trashed.trashed = Timestamp(try await vault.now())
            _ = try await vault.update(trashed, from: item)
        }
    }

    /// Whether `store` made `item` for exactly this origin (not one above it).
    private static func isOwn(_ item: Item, at origin: CredentialOrigin) -> Bool {
        item.tags.contains(tag) && item.origins.contains { CredentialOrigin(origin: $0) == origin }
    }

    /// Enabled logins with an origin that serves `wanted` (and `username`, when git gave one), each
    /// with how closely its best origin does.
    private static func logins(in vault: any ItemVault, serving wanted: CredentialOrigin,
                               username: String?) async throws -> [(item: Item, specificity: Int)] {
        try await vault.items(.everything).compactMap { listed -> (Item, Int)? in
            guard let item = listed.item, item.entry.kind == Entry.loginKind, !item.disabled,
                  username == nil || item.entry.username == username else { return nil }
            let closest = item.origins.compactMap { CredentialOrigin(origin: $0)?.specificity(serving: wanted) }.max()
            return closest.map { (item, $0) }
        }
    }

    /// The vault through the agent, else unlocked here: stdin is git's, so without
    /// --passphrase-file the passphrase is asked at the terminal, as git asks for its own.
    private func unlock() async throws -> any ItemVault {
        if let agent = global.agent() { return agent }
        if global.passphraseFile != nil { return try await global.unlockedVault() }
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard terminal >= 0 else {
            throw CommandFailure("No agent holds the vault unlocked and there is no terminal to ask for its passphrase: "
                + "run `coffer unlock` first.")
        }
        close(terminal)
        let vault = try Vault.open(at: global.vaultPath)
        let passphrase = try Terminal.readHidden(prompt: "Passphrase for \(global.vaultPath): ")
        try await vault.unlock(passphrase: passphrase)
        return vault
    }

    /// git's request: stdin up to its blank line (or its end), at most `GitCredentialMessage.sizeLimit` bytes.
    private static func readRequest() throws -> GitCredentialMessage {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { wipe(&chunk) }
        while !(data.first == 0x0A || data.suffix(2).elementsEqual([0x0A, 0x0A])) {
            let count = read(STDIN_FILENO, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            data.append(contentsOf: chunk[..<count])
            if data.count > GitCredentialMessage.sizeLimit { break }
        }
        defer { wipe(&data) }
        do {
            return try GitCredentialMessage(parsing: data)
        } catch {
            throw UsageError("\(error.description.prefix(1).uppercased())\(error.description.dropFirst()).")
        }
    }
}
