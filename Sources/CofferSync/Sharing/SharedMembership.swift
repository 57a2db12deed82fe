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

    /// Takes `personID` out (`SharedRevocation`: the roster's `remove`, the new epoch's key sealed
    /// to everyone who stays, the group and the records' permissions) and keeps the roster it
    /// ended with. `entries`: the roster just refreshed; `decidedOn`: the one the person chose from.
    ///
    /// - Throws: `RosterProblem` when the roster refuses the change, a `KintoError`, a `CoreError`.
    public func remove(_ personID: String, with secrets: MemberSecrets, continuing entries: [RosterEntry],
                       decidedOn: [RosterEntry]) async throws -> SharedRevocation.Outcome {
        let revocation = SharedRevocation(client: client(bucket: vaultID.bucket), vaultID: vaultID, vault: name, secrets: secrets)
        let outcome = try await revocation.remove(personID, continuing: entries, decidedOn: decidedOn)
        try vault.database.setMeta(.rosterEntries, Vault.rosterMeta(outcome.entries))
        return outcome
    }
}
