import CofferCore
import Foundation

/// After the first sync that reached the server, a personal vault learns its account's bucket id
/// (`KintoClient.accountBucketID`) and its later syncs name the bucket instead of `default`
/// (architecture §4, "Buckets"). Two requests, once per vault and account.
extension SyncEngine {
    /// Every collection a personal vault's sync reads or writes: the steps own their names.
    static let accountCollections = CollectionName.allCases.map(\.rawValue)
        + DeviceCollectionName.allCases.map(\.rawValue) + [AttachmentStep.collection]

    func learnAccountBucketIfNeeded(after report: SyncReport) async {
        guard learnsAccountBucket, report.error == nil || report.error == .syncLocked, vault.sharedVaultID == nil, client.bucket == "default",
              let account = try? SyncAccount.load(from: vault.database), account.bucket == nil else { return }
        do {
            // A server without the `default_bucket` plugin names none: `default` is kept and not asked again.
            let id = try await client.accountBucketID(making: Self.accountCollections) ?? "default"
            let kept = try vault.database.syncWrite { store in
                // Another process may have signed in to another account since this sync loaded it.
                guard try store.meta(.accountUser) == account.user, try store.meta(.accountServer) == account.server.absoluteString,
                      try store.meta(.accountBucket) == nil else { return false }
                try store.setMeta([.accountBucket: id])
                return true
            }
            guard kept else { return }
            // A long-lived engine (the screen's, the agent's) names it from its next sync on.
            client = KintoClient(server: account.server, credentials: account.credentials, bucket: id, bucketIsShared: false)
            logger.info("sync: the account's bucket is \(id); later syncs name it")
        } catch {
            logger.info("sync: the account's bucket id is not known yet (\(error)); the next sync asks again")
        }
    }
}
