import CofferCore
import Foundation

extension SyncEngine {
    /// Starts the conditional listings every sync makes — items, keystores and, in a personal
    /// vault, this device's messages — at once (a shared vault's roster listing goes beside them):
    /// an idle sync then waits for one round trip instead of three (issue 33). The steps take each
    /// answer, or its error, when they ask with the same marker, in their usual order, so what a
    /// step does with it is unchanged; one whose marker moved meanwhile (another process synced)
    /// asks again, and anything not taken is waited for and dropped at the end of the sync
    /// (`discardPrefetched`: no request of a sync arrives after it returned). Nothing is read from
    /// the answers before the roster is verified.
    func prefetchListings(_ context: SyncContext) async throws {
        let markers = try context.database.syncRead { store in
            (items: try store.marker(.items), keystores: try store.marker(.keystores), messages: try store.marker(.messages))
        }
        // Only listings asked before (a marker): a first one through `default` makes the bucket and
        // its collection, and Kinto on PostgreSQL answers 409 to two such makings at once.
        if let items = markers.items { await client.prefetchChanges(collection: .items, since: items) }
        if let keystores = markers.keystores { await client.prefetchChanges(collection: .keystores, since: keystores) }
        if vault.sharedVaultID == nil, let messages = markers.messages {
            await client.prefetchRecords(.messages, filter: ["recipient": try vault.deviceID()], etag: messages)
        }
    }
}
