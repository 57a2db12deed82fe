import CofferCore
import CofferSync
import Foundation

/// A person's side of the `share` commands: their vault (personal, or their copy of a shared
/// one), its account, and the steps on the shared bucket (architecture §17).
struct ShareMember {
    let vault: Vault
    let account: SyncAccount

    /// The collections of a shared bucket: Kinto makes them on the first write only in `default`.
    static let collections = SharedRoster.collections

    /// The personal vault `share create` and `share join` run on: it needs a sync account.
    static func personal(_ global: GlobalOptions) throws -> ShareMember {
        let vault = try Vault.open(at: global.vaultPath)
        guard vault.sharedVaultID == nil else {
            throw UsageError("\(global.vaultPath) is a shared vault; run this on your personal vault.")
        }
        guard let account = try SyncAccount.load(from: vault.database) else {
            throw UsageError("A shared vault syncs with your account: set one with `coffer account signup` first.")
        }
        return ShareMember(vault: vault, account: account)
    }

    /// The shared vault `--vault NAME` names.
    static func shared(_ global: GlobalOptions) throws -> ShareMember {
        let vault = try Vault.open(at: global.vaultPath)
        guard vault.sharedVaultID != nil, let account = try SyncAccount.load(from: vault.database) else {
            throw UsageError("\(global.vaultPath) is not a shared vault: name one with --vault NAME.")
        }
        return ShareMember(vault: vault, account: account)
    }

    var vaultID: SharedVaultID { vault.sharedVaultID! }
    /// The shared steps (`SharedMembership`), for a shared vault with its account.
    var membership: SharedMembership { SharedMembership(vault: vault, account: account, vaultID: vaultID) }
    var name: String { (try? vault.database.meta(.shareName)).flatMap { $0 } ?? vaultID.bucket }

    func client(bucket: String) -> KintoClient {
        KintoClient(server: account.server, credentials: account.credentials, bucket: bucket)
    }


    /// What a member's copy keeps in `meta` from its first transaction on.
    /// Makes this device's copy `NAME.db` of the shared vault and syncs it: a new vault (its first
    /// keystore wrapped under the epoch key) or, given the server's `keystore`, a copy of it. The
    /// member secrets go into the copy's `meta` in the transaction that makes it, and into the
    /// personal account's `shares` record, so the person's other devices can make theirs.
    func makeCopy(at path: String, of vaultID: SharedVaultID, named name: String, secrets: MemberSecrets,
                  sealedUnder passphrase: (keys: PassphraseKeys, kdf: KDFParameters), roster: [RosterEntry],
                  keystore: KeystoreRecord?) async throws -> Vault {
        let member = try secrets.sealed(under: passphrase.keys, kdf: passphrase.kdf, vaultID: vaultID)
        let meta = account.meta.merging([
            .sharePersonalVault: URL(fileURLWithPath: vault.database.path).standardizedFileURL.path,
            .shareVault: vaultID.bucket, .shareName: name, .sharePerson: secrets.person.id, .shareEpoch: String(secrets.epoch),
            .shareMember: member, .rosterEntries: Vault.rosterMeta(roster),
        ]) { $1 }.filter { $0.key != .accountBucket }  // the personal vault's bucket, not this one's
        let deviceName = try vault.database.meta(.deviceName) ?? Vault.defaultDeviceName
        // Recorded first: a process that dies before making the file leaves the person a way back
        // (`share join NAME`), and one that dies after it a whole copy whose next sync fetches the items.
        try await publish(vaultID, named: name, member: member, sealedUnder: passphrase.keys)
        let copy = try keystore.map {
            try Vault.join(at: path, keystore: $0, passphrase: secrets.epochKey, deviceName: deviceName, meta: meta)
        } ?? Vault.create(at: path, passphrase: secrets.epochKey, kdf: MemberSecrets.keystoreKDF(epochKey: secrets.epochKey), deviceName: deviceName, meta: meta)
        await copy.signItems(as: secrets)
        CrashPoint.reach("share.copy.after-file")
        try await Self.sync(copy)
        return copy
    }

    /// Records a copy's member secrets in the personal account's bucket; a failure is said, not
    /// fatal (the copy works; only another device of the person's could not make theirs yet).
    func publish(_ vaultID: SharedVaultID, named name: String, member: String, sealedUnder keys: PassphraseKeys) async throws {
        do {
            try await SharedCopies.publish(vaultID, name: name, member: member, sealedUnder: keys, with: client(bucket: "default"))
        } catch let error as KintoError {
            Terminal.write("Your other devices cannot open \u{201C}\(name)\u{201D} until this is recorded on the server: \(error.userMessage)\n")
        }
    }

    /// The first sync of a new copy; its outcome said as `coffer sync` says it.
    static func sync(_ vault: Vault) async throws {
        guard let engine = try SyncEngine.forAccount(of: vault) else { return }
        try SyncOutcomePrinter.finish(await engine.sync(progress: SyncProgressPrinter.make()))
    }

    /// The roster as the server serves it, verified to continue the stored one, and stored.
    func refreshRoster() async throws -> [RosterEntry] {
        try await membership.refreshRoster()
    }

    /// Makes `person` a member (`SharedMembership.add`); the grant the invitation's answer carries.
    func add(_ person: Person, with secrets: MemberSecrets) async throws -> ShareInvitation.Grant {
        do {
            return try await AccountOptions.mapped { try await membership.add(person, with: secrets) }
        } catch let failure as SharedMembership.AddFailure {
            throw UsageError(failure.description)
        }
    }

    /// Begins a new epoch when the roster's current one should not be used
    /// (`SharedMembership.rotateIfNeeded`: its key reached nobody, two removals raced, or someone
    /// left), then takes the new key: a sync fetches it, an unlock takes it and gives the vault
    /// new keys, a sync sends them. Call it unlocked. `always` (`share rotate`): whatever the roster says.
    func rotateIfNeeded(passphrase: SecureBuffer, always: Bool = false) async throws {
        guard let secrets = try vault.memberSecrets(passphrase: passphrase) else { return }
        guard let epoch = try await AccountOptions.mapped({ try await membership.rotateIfNeeded(with: secrets, always: always) })
        else { return }
        Terminal.write(always ? "Epoch \(epoch) begins: the vault's keys are replaced.\n"
                       : "Epoch \(epoch) begins with new keys (someone left, or the last key reached nobody).\n")
        try await Self.sync(vault)
        try await vault.unlock(passphrase: passphrase)
        try await Self.sync(vault)
    }

    /// Takes `personID` out (`SharedMembership.remove`); a change the roster refuses is a usage error.
    func remove(_ personID: String, with secrets: MemberSecrets, continuing entries: [RosterEntry],
                decidedOn: [RosterEntry]) async throws -> SharedRevocation.Outcome {
        do {
            return try await AccountOptions.mapped {
                try await membership.remove(personID, with: secrets, continuing: entries, decidedOn: decidedOn)
            }
        } catch let problem as RosterProblem {
            throw UsageError("The roster refuses this change: \(problem)")
        }
    }

    /// The member `text` names: a name as it is, or the start of an id (8 symbols or more).
    static func member(named text: String, in state: RosterState) throws -> RosterState.Member {
        let byName = state.members.values.filter { $0.person.name == text }
        let byID = text.utf8.count >= 8 ? state.members.values.filter { $0.person.id.hasPrefix(text.lowercased()) } : []
        let found = Set(byName.map(\.person.id)).union(byID.map(\.person.id))
        guard found.count == 1, let id = found.first, let member = state.members[id] else {
            throw UsageError(found.isEmpty ? "No member is named \u{201C}\(TerminalText.name(text))\u{201D}; `share members` lists them."
                             : "Several members match \u{201C}\(TerminalText.name(text))\u{201D}: name one by the start of its id.")
        }
        return member
    }

    /// After the grant: the roster verified from entry 0, holding the entry that added this
    /// person at the grant's position, and the epoch key sealed to them, checked against it.
    func admission(to grant: ShareInvitation.Grant, as keys: PersonKeys, client: KintoClient) async throws
        -> (roster: (entries: [RosterEntry], state: RosterState), epochKey: SecureBuffer) {
        let served = try await AccountOptions.mapped { try await SharedRoster.served(by: client, vault: grant.name) }
        let state = try SharedRoster.verify(served, vaultID: grant.vaultID, continuing: [], vault: grant.name)
        let continuity = grant.head.continuity(of: served)
        guard continuity == .continues else { throw RosterRefusal(vault: grant.name, reason: .discontinued(continuity)) }
        guard state.members[keys.id] != nil else { throw RosterRefusal(vault: grant.name, reason: .removed) }
        guard let epochKey = try await AccountOptions.mapped({
            try await SharedRoster.openSeal(for: state, with: keys, client: client, vault: grant.name)
        }) else {
            throw RosterRefusal(vault: grant.name, reason: .malformed("no key of the current epoch is sealed to you."))
        }
        return ((served, state), epochKey)
    }

    /// The shared vault's keystore on the server.
    static func keystore(_ client: KintoClient, name: String) async throws -> KeystoreRecord {
        guard let keystore = try await client.keystore() else {
            throw KintoError.network(message: "The shared vault \u{201C}\(name)\u{201D} has no keystore on the server yet.")
        }
        return keystore
    }
}
