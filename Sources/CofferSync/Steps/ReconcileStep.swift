import CofferCore
import Foundation

/// Step 3, reconcile: merge what changed on both sides, and authenticate what waited for it. Needs
/// the plaintext, so it runs only while the vault is unlocked; while locked the conflicts wait and
/// the sync ends in `SYNC_LOCKED`. The merges themselves run inside the vault (which owns the
/// keys), each collection in one transaction: items by the item rules of Lockbox's sync design,
/// keystores by the union of keys (a keystore that is not ours is refused: `Vault.reconcileKeystore`).
enum ReconcileStep {
    struct Outcome {
        var merged: [String] = []
        /// Records the server sent that are not ours (they fail to open, or a deletion nobody
        /// entitled wrote): refused, ours kept and sent again.
        var refused = 0
        /// A personal vault's new keys, made on another device at a device's removal, wait for an
        /// unlock with the new passphrase (architecture §9).
        var newKeysWaiting = false
    }

    static func run(_ collection: CollectionName, _ context: SyncContext) async throws -> Outcome {
        guard await !context.vault.isLocked else { return Outcome() }
        switch collection {
        case .items:
            // What replaced a readable item while locked is authenticated first: the merges then
            // start from what this device keeps.
            let refused = try await context.vault.checkMirroredItems()
            if refused > 0 {
                context.logger.warning("reconcile items: \(refused) record(s) from the server do not open; ours were kept and go up again")
                // Committed, not sent: the next sync sends ours.
                CrashPoint.reach("sync.refuse.items.after")
            }
            let refusedRemovals = try await context.vault.authenticateRemovals()
            if refusedRemovals > 0 {
                context.logger.warning("reconcile items: \(refusedRemovals) removal(s) from the server are not sealed by a key holder; the items were kept and go up again")
            }
            let merged = try await context.vault.reconcileItems()
            if !merged.isEmpty { context.logger.info("reconcile items: merged \(merged.count)") }
            return Outcome(merged: merged, refused: refused + refusedRemovals)
        case .keystores:
            var outcome = Outcome()
            // A shared vault's keystore a fetch put in stable while locked is authenticated first.
            if try await context.vault.checkMirroredKeystore() > 0 {
                context.logger.warning("reconcile keystores: the server's keystore does not open with the newest epoch's key; ours was kept and goes up again")
                outcome.refused = 1
            }
            switch try await context.vault.reconcileKeystore() {
            case .merged: context.logger.info("reconcile keystores: union of keys")
            case .refused:
                context.logger.warning("reconcile keystores: the server's keystore is not ours (deleted, or it does not open); ours was kept and goes up again")
                outcome.refused = 1
                CrashPoint.reach("sync.refuse.keystores.after")
            case .waiting: outcome.newKeysWaiting = context.vault.sharedVaultID == nil
            case .nothing: break
            }
            // Keys that arrived from the server (applied in examine or merged here) open their items now.
            try await context.vault.refreshKeys()
            // This device's changes made before it took new keys go under them before push.
            let resealed = try await context.vault.resealUncommittedChanges()
            if resealed > 0 { context.logger.info("reconcile keystores: \(resealed) change(s) made before the new keys sealed again under them") }
            return outcome
        }
    }
}
