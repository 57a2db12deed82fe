import CofferCore
import Foundation

/// Step 3, reconcile: merge what changed on both sides. Needs the plaintext, so it runs only
/// while the vault is unlocked; while locked the conflicts wait and the sync ends in `SYNC_LOCKED`.
/// The merges themselves run inside the vault (which owns the keys), each collection in one
/// transaction: items by the item rules of Lockbox's sync design, keystores by the union of keys.
enum ReconcileStep {
    static func run(_ collection: CollectionName, _ context: SyncContext) async throws -> [String] {
        guard await !context.vault.isLocked else { return [] }
        switch collection {
        case .items:
            let merged = try await context.vault.reconcileItems()
            if !merged.isEmpty { context.logger.info("reconcile items: merged \(merged.count)") }
            return merged
        case .keystores:
            if try await context.vault.reconcileKeystore() { context.logger.info("reconcile keystores: union of keys") }
            // Keys that arrived from the server (applied in examine or merged here) open their items now.
            try await context.vault.refreshKeys()
            return []
        }
    }
}
