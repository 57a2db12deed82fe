import Foundation
import GRDB

/// A shared vault's item versions signed by someone who has left (issue 42): every device that
/// holds one keeps it, but a device that joins later refuses it, and so would any device fetching
/// it anew. So an unlocked member's device signs such a version again as its own — same
/// ciphertext, a new signature — and sends it: O(what they wrote), once, nothing sealed again.
extension Vault {
    /// Signs again, as this session's member, each stable item whose version is signed by someone
    /// the verified roster no longer lists and that has no local change (an edit signs it anyway).
    /// Unsigned versions (before 2026-12-07) stay as they are: a first download takes them.
    @discardableResult
    func signAgainWhatFormerMembersSigned() throws -> Int {
        let session = try unlockedSession()
        guard let mine = session.signer, let vaultID = sharedVaultID,
              case .success(let state) = RosterChain.verify(entries: try verifiedRoster(), vaultID: vaultID) else { return 0 }
        let members = Set(state.members.keys)
        // Read first: at almost every unlock there is nothing to sign, and no write is needed.
        let formers = try itemIDs(signedByNoneOf: members, includingUnsigned: false)
        guard !formers.isEmpty else { return 0 }
        return try database.write { db in
            var count = 0
            for id in formers where try VaultDatabase.pendingChange(.items, id, source: .local, in: db) == nil {
                // Read again in the write: a sync may have replaced it since.
                guard let stable = try VaultDatabase.stableItem(id, in: db),
                      let claimed = ItemSignature.claimedSigner(of: stable.signature), !members.contains(claimed) else { continue }
                try VaultDatabase.recordLocalChange(try ItemSignature.signed(stable, by: mine), in: db)
                count += 1
            }
            return count
        }
    }
}
