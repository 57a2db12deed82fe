import CofferCore
import Foundation

/// The first step of a shared vault's sync (architecture §17): the roster is read whole and
/// verified from entry 0, checked to continue the one this device verified before, and kept;
/// a roster that does not verify, was rolled back or forked, or no longer lists this person
/// stops the sync before any item is fetched or sent.
enum RosterStep {
    static func run(_ context: SyncContext, vaultID: SharedVaultID) async throws {
        let database = context.database
        let vault = try database.meta(.shareName) ?? vaultID.bucket
        let stored = try context.vault.verifiedRoster()
        let served = try await SharedRoster.served(by: context.client, vault: vault)
        let state = try SharedRoster.verify(served, vaultID: vaultID, continuing: stored, vault: vault)
        if served.count > stored.count {
            try database.setMeta(.rosterEntries, Vault.rosterMeta(served))
            context.logger.info("roster: \(served.count - stored.count) new entr(ies) verified")
        }
        if let person = try database.meta(.sharePerson), state.members[person] == nil {
            throw RosterRefusal(vault: vault, reason: .removed)
        }
    }
}
