import ArgumentParser
import CofferCore
import CofferSync
import Foundation

/// `coffer share …`: vaults kept by several people, each with their own passphrase and account
/// (architecture §17).
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share", abstract: "Create a vault shared with other people, invite them, join one, list, revoke or leave its members.",
        subcommands: [Create.self, Invite.self, Join.self, List.self, Members.self, Revoke.self, Leave.self, Rotate.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create NAME.db beside your personal vault: a vault you can share, synced with your account.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The shared vault's name (letters, digits, - and _); `--vault NAME` opens it.") var name: String
        @Option(name: .customLong("as"), help: "Your name, as the other members see it.") var person: String = ShareCommand.defaultPersonName

        func run() async throws {
            guard SharedVaultName.isValid(name) else {
                throw UsageError("A shared vault's name is 1 to \(SharedVaultName.limit) letters, digits, - or _.")
            }
            let member = try ShareMember.personal(global)
            let path = SharedVaultName.path(of: name, besidePersonalVault: global.vaultPath)
            if FileManager.default.fileExists(atPath: path) { throw CoreError.vaultExists(path: path) }
            let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
            let (keys, kdf) = try member.vault.passphraseKeys(passphrase)
            let person = PersonKeys()
            let epochKey = SecureBuffer.random(count: EpochCommitment.keyLength)
            let vaultID = SharedVaultID.random()
            let entry: RosterEntry
            do {
                entry = try RosterChain.creation(of: vaultID, name: self.person, account: member.account.user, by: person, epochKey: epochKey)
            } catch let problem as Person.Problem {
                throw UsageError(problem.description)
            }
            let client = member.client(bucket: vaultID.bucket)
            do {
                _ = try await AccountOptions.mapped {
                    try await client.createSharedBucket(collections: ShareMember.collections, member: member.account.user)
                }
            } catch let failure as SyncFailure where failure.name == .syncAuth {
                throw SyncFailure(name: .syncAuth, description: "The server at \(member.account.server.absoluteString) lets no account create a bucket: "
                                  + "its .ini needs `kinto.bucket_create_principals = system.Authenticated`.")
            }
            try await AccountOptions.mapped {
                guard try await SharedRoster.append(entry, with: client) else { throw KintoError.network(message: "The new vault's roster was taken on the server.") }
                try await SharedRoster.writeSeal(epochKey, epoch: 1, to: try person.person(name: self.person, account: member.account.user),
                                                 in: vaultID, with: client)
            }
            let secrets = MemberSecrets(epoch: 1, epochKey: epochKey, person: person)
            _ = try await member.makeCopy(at: path, of: vaultID, named: name, secrets: secrets, sealedUnder: (keys, kdf),
                                          roster: [entry], keystore: nil)
            Terminal.write("""
                Created the shared vault \u{201C}\(name)\u{201D} (\(path)); you are its only member.
                Invite someone:  coffer --vault \(name) share invite

                """)
        }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a one-time code that lets another person join this shared vault (with `--vault NAME`).")

        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("Seconds the code stays valid.", visibility: .hidden))
        var validSeconds: Double = InvitationHost.lifetime

        func run() async throws {
            let member = try ShareMember.shared(global)
            let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
            // Unlocking takes the key of an epoch begun elsewhere; the sync brings the roster up
            // to date and sends the keystore a new member will open.
            try await member.vault.unlock(passphrase: passphrase)
            try await ShareMember.sync(member.vault)
            try await member.rotateIfNeeded(passphrase: passphrase)
            guard let secrets = try member.vault.memberSecrets(passphrase: passphrase) else { throw CoreError.wrongPassphrase }
            let host = try await AccountOptions.mapped {
                try await InvitationHost.open(server: member.account.server, kind: .share, lifetime: validSeconds,
                                              rememberingIn: member.vault.database)
            }
            Terminal.write("""
                Invitation code: \(host.code)   (valid \(Int(validSeconds / 60)) min, once)
                The other person runs, on their own vault (same server):  coffer share join --code \(host.code)
                Waiting for them…

                """)
            try await InvitationPrompt.serve(host, database: member.vault.database, prepare: { claim in
                let (card, withCard) = try await host.person(of: claim)
                return (withCard, try ShareInvitation.person(fromCard: card))
            }, decide: { claim, person in
                let shown = "\u{201C}\(TerminalText.name(person.name))\u{201D} (account \(TerminalText.name(person.account)))"
                guard try InvitationPrompt.confirm("\(claim.agreement.confirmation) · \(shown) wants to join \u{201C}\(member.name)\u{201D} · allow? [y/N] ")
                else { return nil }
                return try await member.add(person, with: secrets).json
            })
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a shared vault with a code from `coffer share invite`, or make this device's copy of one you "
                + "are a member of (NAME): either makes NAME.db beside your personal vault.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "A shared vault you are a member of from another device (`share list` names them).") var vault: String?
        @Option(help: "The code, e.g. K7Q4-M2XP-9RT.") var code: String?
        @Option(help: "Your name, as the other members see it.") var name: String = ShareCommand.defaultPersonName

        func run() async throws {
            guard (vault == nil) != (code == nil) else {
                throw UsageError("Give either --code (from `coffer share invite`) or the name of a shared vault you are a member of.")
            }
            let member = try ShareMember.personal(global)
            guard let code else { return try await member.copyOwnShare(named: vault ?? "", global: global) }
            let parsed = try InvitationCode(parsing: code)
            let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
            let (keys, kdf) = try member.vault.passphraseKeys(passphrase)
            let person = PersonKeys()
            let card: Person
            do {
                card = try person.person(name: name, account: member.account.user)
            } catch {
                throw UsageError(error.description)
            }
            InvitationPrompt.sayClaiming()
            let claimed = try await AccountOptions.mapped {
                try await InvitationGuest.claim(server: member.account.server, code: parsed, kind: .share, name: name)
            }
            let guest = try await AccountOptions.mapped { try await claimed.sendingPerson(ShareInvitation.card(for: card)) }
            let grant = try ShareInvitation.Grant(json: try await InvitationPrompt.acceptAnswer(
                of: guest, asking: "does the inviting screen show this number?"))
            // Already a member: a name taken here gives the copy another, not a member without a copy.
            let local = try await member.freeName(for: grant, opening: keys)
            let path = SharedVaultName.path(of: local, besidePersonalVault: global.vaultPath)
            let client = member.client(bucket: grant.vaultID.bucket)
            let (roster, epochKey) = try await member.admission(to: grant, as: person, client: client)
            let keystore = try await AccountOptions.mapped { try await ShareMember.keystore(client, name: local) }
            let secrets = MemberSecrets(epoch: roster.state.epoch, epochKey: epochKey, person: person)
            let vault = try await member.makeCopy(at: path, of: grant.vaultID, named: local, secrets: secrets,
                                                  sealedUnder: (keys, kdf), roster: roster.entries, keystore: keystore)
            let renamed = local == grant.name ? "" : " (another vault here is named \u{201C}\(grant.name)\u{201D})"
            Terminal.write("Joined the shared vault \u{201C}\(grant.name)\u{201D}\(renamed): \(path) holds \(try vault.database.status().items) item(s); "
                           + "`--vault \(local)` opens it.\n")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the shared vaults your devices are members of (on your personal vault), and which have a copy here.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let member = try ShareMember.personal(global)
            var copies = try await AccountOptions.mapped { try await SharedCopies.list(with: member.client(bucket: "default")) }
            // A sealed name (`SealedShareName`) opens with the passphrase: asked only when there is one.
            if copies.contains(where: { $0.sealedName != nil }) {
                let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
                let keys = try member.vault.passphraseKeys(passphrase).keys
                copies = copies.map { $0.opened(with: keys) }.sorted { $0.name < $1.name }
            }
            if copies.isEmpty { Output.line("No shared vaults: `coffer share create NAME` makes one.") }
            for copy in copies {
                let path = SharedVaultName.path(of: copy.name, besidePersonalVault: global.vaultPath)
                let here = FileManager.default.fileExists(atPath: path) ? "here: \(path)" : "not on this device: `coffer share join \(copy.name)`"
                Output.line("\(copy.name)  \(here)")
            }
        }
    }

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the members of a shared vault (with `--vault NAME`), as its roster says.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let member = try ShareMember.shared(global)
            // The roster as the server has it now, verified; the stored one when the server cannot be reached.
            let entries: [RosterEntry]
            do {
                entries = try await member.refreshRoster()
            } catch let error as KintoError {
                Terminal.write("\(error.userMessage) The members below are as this device last verified them.\n")
                entries = try member.vault.verifiedRoster()
            }
            let state = try SharedRoster.verify(entries, vaultID: member.vaultID, continuing: [], vault: member.name)
            let you = try member.vault.database.meta(.sharePerson)
            let members = state.members.values.sorted { ($0.addedAt, $0.person.id) < ($1.addedAt, $1.person.id) }
            func name(_ id: String) -> String { state.members[id]?.person.name ?? id }
            if output.json {
                let objects: [[String: Any]] = members.map { member in
                    ["id": member.person.id, "name": member.person.name, "account": member.person.account,
                     "added_by": member.addedBy, "added_at": member.addedAt, "you": member.person.id == you]
                }
                // Through the one `--json` writer: a member's name is a stranger's text, and its DEL,
                // C1 or bidi controls must be `\uXXXX` there, or the terminal backstop of
                // `Output.line` rewrote them inside the JSON's strings and the output was not JSON.
                Output.line(try ItemExchange.text(["vault": member.name, "epoch": state.epoch, "members": objects]))
                return
            }
            Output.line("\(TerminalText.name(member.name)) · epoch \(state.epoch) · \(members.count) member(s)")
            for listed in members {
                let mark = listed.person.id == you ? "★" : " "
                let invitedBy = listed.addedBy == listed.person.id ? "created the vault" : "added by \(TerminalText.name(name(listed.addedBy)))"
                Output.line("\(mark) \(TerminalText.name(listed.person.name))  account \(TerminalText.name(listed.person.account))  "
                      + "\(invitedBy) (roster entry \(listed.addedAt))  id \(listed.person.id.prefix(8))")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take a member out of a shared vault (with `--vault NAME`): the server refuses them from now on.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The member: their name, or the start of their id (8 or more symbols), as `share members` lists them.")
        var person: String

        func run() async throws {
            let member = try ShareMember.shared(global)
            let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
            // One Argon2id: its keys open the member secrets now and the vault again after the removal.
            let keys = try await member.vault.unlock(passphrase: passphrase)
            defer { keys.wrappingKey.wipe() }
            guard let secrets = try member.vault.memberSecrets(keys: keys) else { throw CoreError.wrongPassphrase }
            let decided = try member.vault.verifiedRoster()
            let entries = try await AccountOptions.mapped { try await member.refreshRoster() }
            let state = try SharedRoster.verify(entries, vaultID: member.vaultID, continuing: [], vault: member.name)
            // Named as the roster this device knew lists them: they may have removed us meanwhile,
            // or be out already, removed by an earlier run of this command that failed after its
            // entry (this run finishes it: `SharedRevocation.remove`).
            let known = try SharedRoster.verify(decided.isEmpty ? entries : decided, vaultID: member.vaultID, continuing: [], vault: member.name)
            let removedSince = (try? ShareMember.member(named: person, in: known)).flatMap { state.members[$0.person.id] == nil ? $0 : nil }
            let target = try removedSince ?? ShareMember.member(named: person, in: state.members[secrets.person.id] == nil ? known : state)
            guard target.person.id != secrets.person.id else {
                throw UsageError("To take yourself out, run `coffer --vault \(member.name) share leave`.")
            }
            let outcome = try await member.remove(target.person.id, with: secrets, continuing: entries, decidedOn: decided)
            let name = TerminalText.name(target.person.name)
            Terminal.write("Revoked \u{201C}\(name)\u{201D}: the server refuses their account on \u{201C}\(member.name)\u{201D} from now on "
                           + "(\(outcome.rewritten) record(s) rewritten)\(outcome.raced ? "; they had removed you at the same moment, and both removals hold" : "").\n")
            Terminal.write("What they synced before stays on their devices.\n")
            for left in outcome.permissionsLeft {
                Terminal.write("Warning: on the server, \(TerminalText.message(left)).\n")
            }
            if outcome.raced {
                Terminal.write("You are no longer a member either: \(global.vaultPath) keeps what you had.\n")
            } else {
                // The sync fetches the new epoch's key sealed to us; unlocking takes it and wraps
                // the keystore under it; the next sync sends that keystore.
                try await ShareMember.sync(member.vault)
                try await member.vault.unlock(keys: keys)
                try await ShareMember.sync(member.vault)
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a shared vault (with `--vault NAME`) new keys for everything written from now on: after someone left.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let member = try ShareMember.shared(global)
            let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
            try await member.vault.unlock(passphrase: passphrase)
            try await member.rotateIfNeeded(passphrase: passphrase, always: true)
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Leave a shared vault (with `--vault NAME`): its file stays as it is and no longer syncs.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let member = try ShareMember.shared(global)
            let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
            guard let secrets = try member.vault.memberSecrets(passphrase: passphrase) else { throw CoreError.wrongPassphrase }
            let entries = try await AccountOptions.mapped { try await member.refreshRoster() }
            _ = try await member.remove(secrets.person.id, with: secrets, continuing: entries, decidedOn: entries)
            try SyncAccount.remove(from: member.vault.database)
            Terminal.write("You left \u{201C}\(member.name)\u{201D}. \(global.vaultPath) keeps what you had and no longer syncs.\n")
        }
    }

    /// The person's name when none is given: the login name, else the host's.
    static var defaultPersonName: String {
        let user = ProcessInfo.processInfo.environment["USER"] ?? ""
        return user.isEmpty ? Vault.defaultDeviceName : user
    }
}
