import CofferCore
import CofferSync
import Foundation

extension SharedVaultSummary {
    /// The summary of `vault` from its `meta` (the name, this person, the roster the last sync
    /// verified and stored), or nil for a personal vault. Needs no key: it is read locked too.
    ///
    /// A stored roster that cannot be decoded or does not verify gives a summary without members
    /// that says so (`problem`), not an error: the vault is still usable.
    ///
    /// - Throws: the database's error when `meta` cannot be read.
    static func read(from vault: Vault) throws -> SharedVaultSummary? {
        guard let vaultID = vault.sharedVaultID else { return nil }
        let name = try vault.database.meta(.shareName) ?? vaultID.bucket
        let entries: [RosterEntry]
        do {
            entries = try vault.verifiedRoster()
        } catch let error as CoreError {
            return SharedVaultSummary(name: name, members: [], problem: "\(error)")
        }
        var summary = SharedVaultSummary(name: name, vaultID: vaultID, personID: try vault.database.meta(.sharePerson),
                                         entries: entries)
        summary.invitationWaitsUntil = try vault.database.meta(.pendingInvitation)
            .flatMap(InvitationLeftover.init(stored:)).flatMap { $0.isLive ? $0.expires : nil }
        return summary
    }
}
