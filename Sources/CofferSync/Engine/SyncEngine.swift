import CofferCore
import Foundation
import Logging

/// One sync, start to end: fetch → examine → reconcile → push → apply, each step for `items`
/// then `keystores`, each in its own transaction, so a crash between steps loses nothing and the
/// next sync picks up where this one stopped.
///
/// Runs while the vault is locked; only reconcile needs it unlocked. The outcome, the last sync
/// time, the last error and any Backoff deadline are persisted in `meta`.
public actor SyncEngine {
    public nonisolated let vault: Vault
    /// Replaced when the account password changes (`adoptNextPassword`, `RotationStep`).
    var client: KintoClient
    let logger: Logger
    let now: @Sendable () -> Date
    /// Whether a sync that finds the vault's account bucket unknown learns it (`forAccount`'s
    /// engines; one given its client keeps it, as tests do).
    let learnsAccountBucket: Bool

    public init(vault: Vault, client: KintoClient, logger: Logger = Logger(label: "coffer.sync"),
                now: @escaping @Sendable () -> Date = { Date() }, learnsAccountBucket: Bool = false) {
        self.vault = vault
        self.client = client
        self.logger = logger
        self.now = now
        self.learnsAccountBucket = learnsAccountBucket
    }

    /// The engine for a vault's configured account, or nil when it has none.
    public static func forAccount(of vault: Vault, logger: Logger = Logger(label: "coffer.sync"),
                                  timeout: TimeInterval = 15) throws -> SyncEngine? {
        guard let account = try SyncAccount.load(from: vault.database) else { return nil }
        // A shared vault syncs with the person's account, in the vault's own bucket (architecture §17).
        // A personal vault names its account's bucket by id once a sync learned it (§4, "Buckets").
        let client = KintoClient(server: account.server, credentials: account.credentials,
                                 bucket: vault.sharedVaultID?.bucket ?? account.bucket ?? "default",
                                 bucketIsShared: vault.sharedVaultID != nil, timeout: timeout)
        return SyncEngine(vault: vault, client: client, logger: logger, learnsAccountBucket: true)
    }

    /// Runs one sync. Never throws: failures are in the report (and in `meta`).
    public func sync(progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }) async -> SyncReport {
        let database = vault.database
        if let until = SyncState.backoffUntil(database), until > now() {
            let report = SyncReport(error: .network, message: KintoError.backoff(until: until).userMessage)
            var withDeadline = report
            withDeadline.backoffUntil = until
            return withDeadline
        }
        await InvitationLeftover.removeLeftover(of: database)
        let context = SyncContext(vault: vault, client: client, logger: logger, progress: progress, now: now)
        var report = SyncReport()
        do {
            try await runSteps(context, into: &report)
        } catch let error as KintoError {
            report.error = Self.name(of: error)
            report.message = error.userMessage
            if case .backoff(let until) = error { report.backoffUntil = until }
        } catch let refused as RosterRefusal {
            report.error = refused.errorName
            report.message = refused.description
        } catch let refused as RefusedRecord {
            report.error = .network
            report.message = refused.description
        } catch let error as CoreError where error.isStorageFailure {
            // The vault file itself (a full disk), not the server: said as it is.
            report.error = .disk
            report.message = error.description
        } catch {
            report.error = .network
            report.message = "Sync stopped: \(error)"
        }
        await client.discardPrefetched()
        report.clockSkew = await client.clockSkew
        if report.error == .syncAuth, (try? adoptNextPassword()) == true { return await sync(progress: progress) }
        if let asked = await client.backoffUntil, asked > now(), asked > (report.backoffUntil ?? .distantPast) {
            report.backoffUntil = asked
        }
        await learnAccountBucketIfNeeded(after: report)
        CrashPoint.reach("sync.state.before")
        SyncState.record(report, at: now(), in: database, logger: logger)
        return report
    }

    private func runSteps(_ context: SyncContext, into report: inout SyncReport) async throws {
        let shared = vault.sharedVaultID
        try await prefetchListings(context)
        if let shared {
            try await RosterStep.run(context, vaultID: shared)
        }
        let collections: [CollectionName] = [.items, .keystores]
        for collection in collections {
            CrashPoint.reach("sync.fetch.\(collection.rawValue).before")
            let fetched = try await FetchStep.run(collection, context)
            CrashPoint.reach("sync.fetch.\(collection.rawValue).after")
            report.downloaded += fetched.received
            report.rolledBack += fetched.rolledBack
            report.refused += fetched.refused
            logger.info("fetch \(collection.rawValue): downloaded \(fetched.received)\(fetched.fullResync ? " (full re-sync)" : "")")
        }
        // What this device writes from here on (merges, their times) uses the server's clock.
        if let skew = await client.clockSkew { SyncState.record(skew, in: context.database, logger: logger) }
        var conflicts = 0
        var recreated: [String: UInt64] = [:]
        for collection in collections {
            CrashPoint.reach("sync.examine.\(collection.rawValue).before")
            let examined = try ExamineStep.run(collection, context)
            CrashPoint.reach("sync.examine.\(collection.rawValue).after")
            conflicts += examined.conflicts
            if collection == .items { recreated = examined.recreated }
            logger.info("examine \(collection.rawValue): applied \(examined.applied), conflicts \(examined.conflicts)")
        }
        if shared != nil { await takeNewerEpoch(into: &report) }
        let isUnlocked = await !vault.isLocked
        if isUnlocked, !recreated.isEmpty {
            let raised = try await vault.floorRevisions(recreated)
            if raised > 0 { logger.info("examine items: \(raised) re-created over a tombstone, sealed newer than it") }
        }
        var newKeysWaiting = false
        if conflicts > 0 || isUnlocked {
            for collection in collections {
                CrashPoint.reach("sync.reconcile.\(collection.rawValue).before")
                let reconciled = try await ReconcileStep.run(collection, context)
                CrashPoint.reach("sync.reconcile.\(collection.rawValue).after")
                report.merged += reconciled.merged.count
                report.mergedIDs += reconciled.merged
                report.refused += reconciled.refused
                newKeysWaiting = newKeysWaiting || reconciled.newKeysWaiting
            }
        }
        // The one place the trash lets go of what it held past its time (issue 43): unlocked, after
        // the merges (an edit that took an item out of the trash has landed), before the push, so
        // the removals go up now.
        if await !vault.isLocked {
            let purged = try await vault.purgeExpiredTrash()
            if purged > 0 { logger.info("trash: \(purged) item(s) kept over \(TrashRules.keptDays) days removed for good") }
        }
        // Files' chunks first: an item naming a file goes up only once the file is there.
        let filesSent = try await AttachmentStep.upload(context)
        if filesSent > 0 { logger.info("attachments: \(filesSent) file(s) sent") }
        var acknowledgements: [PushStep.Acknowledgement] = []
        var unknown = 0
        var held = 0
        do {
            for collection in collections {
                CrashPoint.reach("sync.push.\(collection.rawValue).before")
                let pushed = try await PushStep.run(collection, context)
                acknowledgements += pushed.acknowledgements
                unknown += pushed.unknown
                held += pushed.held
            }
        } catch {
            // What the server already accepted (the items, when the keystores push fails) is
            // certain: make it stable now, or an edit another device makes on top of it before our
            // next sync would be merged against a stale base and lose to our older version.
            try ApplyStep.run(acknowledgements, context)
            throw error
        }
        CrashPoint.reach("sync.apply.before")
        try ApplyStep.run(acknowledgements, context)
        CrashPoint.reach("sync.apply.after")
        report.uploaded = acknowledgements.count
        logger.info("apply: \(acknowledgements.count) changes are stable")
        let filesRemoved = try await AttachmentStep.removeRemoved(context)
        let filesReceived = try await AttachmentStep.fetch(context)
        if filesRemoved + filesReceived > 0 {
            logger.info("attachments: \(filesReceived) file(s) received, \(filesRemoved) removed from the server")
        }
        // Files the server no longer holds: dropped if no item names them, else sent again.
        if await !vault.isLocked, try await vault.settleLooseAttachments() > 0 {
            let resent = try await AttachmentStep.upload(context)
            logger.warning("attachments: the server had lost \(resent) file(s) an item still names; sent again")
        }

        // Devices, their messages and the account's password belong to the person's personal vault.
        if shared == nil { try await runDeviceSteps(context, into: &report) }

        report.conflictsWaiting = try context.database.conflictCount()
        if unknown > 0 {
            report.error = .network
            report.message = "The server's answer to \(unknown) change(s) was lost; the next sync checks what it kept."
        } else if report.conflictsWaiting > 0 {
            report.error = .syncLocked
            report.message = "\(report.conflictsWaiting) item(s) changed on two devices wait for an unlock to be merged."
        } else if newKeysWaiting {
            report.error = .syncLocked
            report.message = "The vault got new keys and a new passphrase on another device (a device was removed): "
                + "lock, then unlock with the new passphrase; this device's changes wait until then."
        } else if held > 0 {
            report.error = .syncLocked
            report.message = "The passphrase was changed on another device: unlock with the new one; "
                + "\(held) change(s) made here wait until then."
        }
        if report.refused > 0 && report.error != .network {
            // Not a failure of the sync: ours stands and is on its way back. Said before a
            // rollback, which the same server may have tried too: this is the graver one.
            report.error = .forged
            report.message = shared == nil
                ? "The server sent \(report.refused) record(s) that are not ours (they do not open, or a deletion nobody here wrote); our copies are kept and were sent again."
                : "The server sent \(report.refused) record(s) that no current member signed (a removed member's, a forgery, or a member's on a version older than 2026-12-07); our copies are kept and were sent again."
        } else if report.rolledBack > 0 && report.error != .network {
            // A hostile or restored-from-backup server: say so even when everything else went well.
            let next = report.conflictsWaiting > 0 ? "it waits for an unlock to be merged with ours" : "ours was kept and merged (⚑)"
            report.error = .rollback
            report.message = "The server sent \(report.rolledBack) record(s) older than this device's (a rollback or replay); nothing was overwritten: \(next)."
        }
    }

    /// A session of an older epoch cannot open the keystore the member who began the new one
    /// writes (§17), and would take the items sealed again for damaged ones to replace: before
    /// reconcile, the open session takes the key the roster step fetched, with the person's keys
    /// it was unlocked with. After examine, so the new keystore is in the file and the unlock opens
    /// it as it stands: re-wrapping the old one first made a local keystore change that the next
    /// member's locked sync had to wait for an unlock to merge. Only a session without those keys
    /// locks, for the next unlock to take it. Fetch and examine never use the session.
    private func takeNewerEpoch(into report: inout SyncReport) async {
        switch await vault.takeNewerEpoch() {
        case .taken(let epoch)?:
            logger.info("roster: epoch \(epoch) began; the open vault took its key")
        case .locked(let epoch)?:
            report.newEpoch = epoch
            logger.info("roster: epoch \(epoch) began; the vault locks until it is unlocked with the new key")
        case nil:
            break
        }
    }

    public static func name(of error: KintoError) -> SyncErrorName {
        switch error {
        case .offline: return .offline
        case .unauthorized: return .syncAuth
        case .network, .backoff, .accountExists: return .network
        }
    }
}
