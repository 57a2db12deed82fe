import CofferCore
import Foundation

/// A person's copy of a shared vault with the account it syncs with: the roster steps the
/// command line (`coffer share …`) and the screen's Members page both take (architecture §17).
public struct SharedMembership: Sendable {
    public let vault: Vault
    public let account: SyncAccount
    public let vaultID: SharedVaultID

    public init(vault: Vault, account: SyncAccount, vaultID: SharedVaultID) {
        self.vault = vault
        self.account = account
        self.vaultID = vaultID
    }

    /// Nil for a personal vault, or a shared vault without an account (left: `share leave`).
    public init?(vault: Vault) throws {
        guard let vaultID = vault.sharedVaultID, let account = try SyncAccount.load(from: vault.database) else { return nil }
        self.vault = vault
        self.account = account
        self.vaultID = vaultID
    }

    /// The vault's name (`meta.share_name`), else its bucket.
    public var name: String { (try? vault.database.meta(.shareName)).flatMap { $0 } ?? vaultID.bucket }

    public func client(bucket: String) -> KintoClient {
        KintoClient(server: account.server, credentials: account.credentials, bucket: bucket)
    }

    /// The roster as the server serves it, verified to continue the stored one, and stored.
    public func refreshRoster() async throws -> [RosterEntry] {
        let served = try await SharedRoster.served(by: client(bucket: vaultID.bucket), vault: name)
        _ = try SharedRoster.verify(served, vaultID: vaultID, continuing: try vault.verifiedRoster(), vault: name)
        try vault.database.setMeta(.rosterEntries, Vault.rosterMeta(served))
        return served
    }

    /// Why `add` did not make someone a member.
    public enum AddFailure: Error, Sendable, CustomStringConvertible {
        /// The roster's epoch is newer than the key this copy holds: a sync (then an unlock) takes it.
        case keyChanged(vault: String)
        /// Other members' entries took the position five times running.
        case rosterBusy
        /// The roster refuses the entry (the person is a member already…).
        case refused(name: String, RosterProblem)

        public var description: String {
            switch self {
            case .keyChanged(let vault):
                return "The vault's key changed since this device last had it: run `coffer --vault \(vault) sync`, then invite again."
            case .rosterBusy: return "Other members kept changing the roster; invite again."
            case .refused(let name, let problem): return "\(TerminalText.name(name)) cannot be added: \(problem)"
            }
        }
    }

    /// Makes `person` a member: the `add` entry appended to the roster (made again if another
    /// member's entry took its place), the epoch key sealed to them, their account put in the
    /// bucket's group. The grant the invitation's answer carries.
    ///
    /// - Throws: `AddFailure`, a `KintoError`, a `CoreError`.
    public func add(_ person: Person, with secrets: MemberSecrets) async throws -> ShareInvitation.Grant {
        let client = client(bucket: vaultID.bucket)
        for _ in 0..<5 {
            let entries = try await refreshRoster()
            let state = try SharedRoster.verify(entries, vaultID: vaultID, continuing: [], vault: name)
            guard state.epoch == secrets.epoch, EpochCommitment.matches(state.epochCommitment, epoch: state.epoch, key: secrets.epochKey)
            else { throw AddFailure.keyChanged(vault: name) }
            let entry: RosterEntry
            do {
                entry = try RosterChain.entry(appending: .add(person), to: state, by: secrets.person, epochKey: secrets.epochKey)
            } catch let problem as RosterProblem {
                throw AddFailure.refused(name: person.name, problem)
            }
            guard try await SharedRoster.append(entry, with: client) else { continue }
            try vault.database.setMeta(.rosterEntries, Vault.rosterMeta(entries + [entry]))
            CrashPoint.reach("share.invite.after-add")
            try await SharedRoster.writeSeal(secrets.epochKey, epoch: state.epoch, to: person, in: vaultID, with: client)
            try await SharedRoster.admit(account: person.account, with: client)
            return ShareInvitation.Grant(vaultID: vaultID, name: name, head: RosterHead(position: Int(entry.sequence), hash: entry.hash))
        }
        throw AddFailure.rosterBusy
    }

    /// Begins a new epoch (`rotate`) when the roster's current one should not be used: its key
    /// reached nobody (the member who began it died before sealing it), two removals raced
    /// (`RosterState.needsRotation`), or it was begun by someone leaving, who knows its key.
    /// `always` (`share rotate`): whatever the roster says. The key is sealed to every member;
    /// this device's next unlock that takes it gives the vault new keys (`meta.share_rekey`).
    /// Returns the new epoch, or nil when none was needed or another member's entry came first.
    public func rotateIfNeeded(with secrets: MemberSecrets, always: Bool = false) async throws -> UInt64? {
        let client = client(bucket: vaultID.bucket)
        let entries = try await refreshRoster()
        let state = try SharedRoster.verify(entries, vaultID: vaultID, continuing: [], vault: name)
        guard state.members[secrets.person.id] != nil else { return nil }
        if !always, !state.needsRotation, !Self.begunByLeaving(state.epoch, in: entries) {
            guard state.epoch > secrets.epoch else { return nil }
            // Sealed to this person: taken at the next unlock after a sync.
            if try await SharedRoster.hasSeal(epoch: state.epoch, personID: secrets.person.id, with: client) { return nil }
        }
        let key = SecureBuffer.random(count: EpochCommitment.keyLength)
        let entry = try RosterChain.entry(appending: .rotate, to: state, by: secrets.person, epochKey: key)
        // Before the entry, as a revocation does: one that dies after its seals still gives new keys.
        try vault.database.setMeta(.shareRekey, String(entry.epoch))
        guard try await SharedRoster.append(entry, with: client) else { return nil }
        try vault.database.setMeta(.rosterEntries, Vault.rosterMeta(entries + [entry]))
        CrashPoint.reach("share.rotate.after-entry")
        for member in state.members.values {
            try await SharedRoster.writeSeal(key, epoch: entry.epoch, to: member.person, in: vaultID, with: client)
        }
        return entry.epoch
    }

    /// Whether the entry that began `epoch` is someone's removal of themselves (`share leave`).
    static func begunByLeaving(_ epoch: UInt64, in entries: [RosterEntry]) -> Bool {
        guard let first = entries.first(where: { $0.epoch == epoch }), case .remove(let personID) = first.change else { return false }
        return personID == first.author
    }

    /// Takes `personID` out (`SharedRevocation`: the roster's `remove`, the new epoch's key sealed
    /// to everyone who stays, the group and the records' permissions) and keeps the roster it
    /// ended with; this device's next unlock that takes the new epoch's key gives the vault new
    /// keys (`meta.share_rekey`). `entries`: the roster just refreshed; `decidedOn`: the one the person chose from.
    ///
    /// - Throws: `RosterProblem` when the roster refuses the change, a `KintoError`, a `CoreError`.
    public func remove(_ personID: String, with secrets: MemberSecrets, continuing entries: [RosterEntry],
                       decidedOn: [RosterEntry]) async throws -> SharedRevocation.Outcome {
        let vault = self.vault
        let revocation = SharedRevocation(client: client(bucket: vaultID.bucket), vaultID: vaultID, vault: name, secrets: secrets,
                                          itemsToRewrite: { try vault.itemIDs(signedByNoneOf: $0) })
        // Before the entry: a revocation that dies after its seals still gives the vault new
        // keys at this device's next unlock (the epoch its entry began, at the earliest).
        if personID != secrets.person.id {
            let known = try SharedRoster.verify(entries, vaultID: vaultID, continuing: [], vault: name)
            try vault.database.setMeta(.shareRekey, String(known.epoch + 1))
        }
        let outcome = try await revocation.remove(personID, continuing: entries, decidedOn: decidedOn)
        try vault.database.setMeta(.rosterEntries, Vault.rosterMeta(outcome.entries))
        // The epoch this removal began: the unlock that takes its key gives the vault new keys.
        if !outcome.raced, personID != secrets.person.id {
            try vault.database.setMeta(.shareRekey, String(outcome.state.epoch))
        }
        return outcome
    }
}
