import ArgumentParser
import CofferCore
import CofferSync
import Foundation

/// `coffer device invite`: a one-time code for a new device of this vault (the Airmail journal).
struct DeviceInviteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite",
        abstract: "Print a one-time code that lets a new device join this vault (works while locked).")

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("Seconds the code stays valid.", visibility: .hidden))
    var validSeconds: Double = InvitationHost.lifetime

    func run() async throws {
        let vault = try Vault.open(at: global.vaultPath)
        guard let account = try SyncAccount.load(from: vault.database) else {
            throw UsageError("This vault has no sync account to share; set one with `coffer account signup` first.")
        }
        let host = try await AccountOptions.mapped {
            try await InvitationHost.open(server: account.server, kind: .device, lifetime: validSeconds,
                                          rememberingIn: vault.database)
        }
        Terminal.write("""
            Invitation code: \(host.code)   (valid \(Int(validSeconds / 60)) min, once)
            On the new device run:  coffer join --server \(account.server.absoluteString) --code \(host.code)
            Waiting for it…

            """)
        try await InvitationPrompt.serve(host, database: vault.database) { claim in
            guard try InvitationPrompt.confirm(claim, wants: "wants to join") else { return nil }
            return try JSONSerialization.data(withJSONObject: ["server": account.server.absoluteString, "user": account.user,
                                                               "password": account.password])
        }
    }
}

extension InvitationPrompt {
    /// Says, on stderr, what the seconds before the number wait for: the code is stretched with
    /// Argon2id before the rendezvous is found, then the other side's key is awaited. The command
    /// was silent for 3–5 s and looked hung. Only to a terminal, as the sync's progress: a script
    /// reading stderr keeps one line for an error.
    static func sayClaiming() {
        guard isatty(STDERR_FILENO) != 0 else { return }
        Terminal.write("Checking the code with the inviting side (a few seconds: the code is stretched first)…\n")
    }
}

/// The inviting side's run: wait for a claim, answer it with what `decide` gives (nil declines),
/// remove the rendezvous; the leftover record in `meta` goes with it.
enum InvitationPrompt {
    ///
    /// `prepare` reads what else the claimant sends before the question (a `share` claimant's
    /// card); `decide` may take its time (a `share` answer is written to the roster first).
    static func serve<Prepared>(_ host: InvitationHost, database: VaultDatabase,
                                prepare: (InvitationHost.Claim) async throws -> (InvitationHost.Claim, Prepared),
                                decide: (InvitationHost.Claim, Prepared) async throws -> Data?) async throws {
        do {
            let (claim, prepared) = try await AccountOptions.mapped { try await prepare(try await host.waitForClaim()) }
            let payload = try await decide(claim, prepared)
            try await AccountOptions.mapped { try await host.answer(claim, allowing: payload) }
            try await AccountOptions.mapped { try await host.close() }
            try InvitationLeftover.forget(in: database)
            if payload == nil {
                Terminal.write("Declined: nothing was shared; nothing is left on the server.\n")
            } else {
                Terminal.write("Done: \u{201C}\(TerminalText.name(claim.name))\u{201D} has what it needs; nothing is left on the server.\n")
            }
        } catch let error as InvitationError {
            try? await host.remove()
            try? InvitationLeftover.forget(in: database)
            throw error
        }
    }

    static func serve(_ host: InvitationHost, database: VaultDatabase,
                      decide: (InvitationHost.Claim) throws -> Data?) async throws {
        try await serve(host, database: database, prepare: { ($0, ()) }, decide: { claim, _ in try decide(claim) })
    }

    /// Asks whether `claim` may have what it `wants`: the number first, then the name as a
    /// stranger may have written it (shown through `TerminalText.name`, so no name can redraw or
    /// push away the number).
    static func confirm(_ claim: InvitationHost.Claim, wants: String) throws -> Bool {
        let name = TerminalText.name(claim.name)
        return try confirm("\(claim.agreement.confirmation) · \u{201C}\(name)\u{201D} \(wants) · allow? [y/N] ")
    }

    /// The claimant's side (`join --code`, `receive`): asks whether the other screen shows this
    /// side's number and takes the inviter's answer only after a yes. The line holds the number
    /// this side derived and this program's own words, nothing the other side wrote: no
    /// stranger's bytes stand beside the number.
    ///
    /// - Throws: `InvitationError.unconfirmed` after a no or no answer (nothing is taken, the
    ///   rendezvous is removed), or what waiting for the answer throws.
    static func acceptAnswer(of guest: InvitationGuest, asking question: String) async throws -> Data {
        try await AccountOptions.mapped {
            try await guest.takeAnswer { try confirm("\(guest.confirmation) · \(question) [y/N] ") }
        }
    }

    /// Asks a yes/no question on the terminal, or reads the next line of stdin when it is not
    /// one; no answer at all is a no.
    static func confirm(_ question: String) throws -> Bool {
        Terminal.write(question)
        let answer = (try? Terminal.readLine()) ?? ""
        if isatty(STDIN_FILENO) == 0 { Terminal.write("\(TerminalText.line(answer))\n") }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

/// `coffer send NAME`: one item to another person, through a one-time code.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Give one item to another person: prints a one-time code for `coffer receive`.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @Option(help: "The Kinto server to meet on (default: this vault's sync server).") var server: String?
    @Option(help: ArgumentHelp("Seconds the code stays valid.", visibility: .hidden))
    var validSeconds: Double = InvitationHost.lifetime

    func run() async throws {
        let item = try await target.item(in: try await global.itemVault())
        let vault = try Vault.open(at: global.vaultPath)
        let meeting = try server.map(AccountOptions.serverURL) ?? SyncAccount.load(from: vault.database)?.server
        guard let meeting else { throw UsageError("This vault has no sync server; name one with --server.") }
        let host = try await AccountOptions.mapped {
            try await InvitationHost.open(server: meeting, kind: .item, lifetime: validSeconds, rememberingIn: vault.database)
        }
        let title = TerminalText.name(item.title)
        Terminal.write("""
            Code for \u{201C}\(title)\u{201D}: \(host.code)   (valid \(Int(validSeconds / 60)) min, once)
            The other person runs:  coffer receive --server \(meeting.absoluteString) \(host.code)
            Waiting for them…

            """)
        if !item.attachments.isEmpty {
            // The code's exchange carries one small record; files stay here.
            Terminal.write("Its \(item.attachments.count) file(s) are not sent, only its fields: `coffer attachment` saves one to give it another way.\n")
        }
        let payload = try SentItem.payload(for: item)
        // Nothing leaves before the person compared the numbers and said yes.
        try await InvitationPrompt.serve(host, database: vault.database) { claim in
            try InvitationPrompt.confirm(claim, wants: "asks for \u{201C}\(title)\u{201D}") ? payload : nil
        }
    }
}

/// `coffer receive --server URL CODE`: adds the item another person sent.
struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive", abstract: "Add the item someone sent you with `coffer send`.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The Kinto server the code was made on.") var server: String
    @Argument(help: "The code, e.g. K7Q4-M2XP-9RT.") var code: String
    @Option(help: "Your name, as the sender sees it.") var name: String = Vault.defaultDeviceName

    func run() async throws {
        let code = try InvitationCode(parsing: code)
        let url = try AccountOptions.serverURL(server)
        let vault = try await global.itemVault()
        InvitationPrompt.sayClaiming()
        let guest = try await AccountOptions.mapped { try await InvitationGuest.claim(server: url, code: code, kind: .item, name: name) }
        let payload = try await InvitationPrompt.acceptAnswer(of: guest, asking: "does the sender's screen show this number?")
        let received = try SentItem.item(from: payload, now: .now())
        try await vault.addAll([received])
        Terminal.write("Received \u{201C}\(TerminalText.line(received.title))\u{201D}; it is in your vault now.\n")
    }
}
