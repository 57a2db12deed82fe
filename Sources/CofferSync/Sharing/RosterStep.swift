import CofferCore
import Foundation

/// The first step of a shared vault's sync (architecture §17): the roster's changes since the
/// last are read (a 304 when there are none), and the chain verified from entry 0, checked to continue the one this device verified before, and kept;
/// a roster that does not verify, was rolled back or forked, or no longer lists this person
/// stops the sync before any item is fetched or sent.
enum RosterStep {
    static func run(_ context: SyncContext, vaultID: SharedVaultID) async throws {
        let database = context.database
        let vault = try database.meta(.shareName) ?? vaultID.bucket
        let stored = try context.vault.verifiedRoster()
        let (served, marker): ([RosterEntry], String?)
        do {
            (served, marker) = try await fetch(continuing: stored, context, vault: vault)
        } catch KintoError.unauthorized {
            throw RosterRefusal(vault: vault, reason: .refusedByServer)
        }
        let state = try SharedRoster.verify(served, vaultID: vaultID, continuing: stored, vault: vault)
        if let person = try database.meta(.sharePerson), state.members[person] == nil {
            throw RosterRefusal(vault: vault, reason: .removed)
        }
        try await fetchNewerSeal(state, context)
        // The entries first: a marker ahead of them would hide the entries it stands for.
        if served.count > stored.count { try database.setMeta(.rosterEntries, Vault.rosterMeta(served)) }
        if let marker { try database.setMeta(.rosterMarker, marker) }
        if served.count > stored.count {
            context.logger.info("roster: \(served.count - stored.count) new entr(ies) verified")
            // The group follows the roster: an account the roster no longer lists (the winner of
            // a raced removal, a revocation cut short) is taken out by the next member who sees it.
            let dismissed = try await dismissStrangers(state, client: context.client)
            if dismissed > 0 { context.logger.info("roster: \(dismissed) account(s) no member uses taken out of the group") }
            // Someone left, lost a race, or their revoker stopped half-way: what they wrote still
            // carries their `write` until a member rewrites it (`SharedRoster.clearAuthorPermissions`).
            let lastRemoval = served.indices.last { position in
                guard position >= stored.count, case .remove = served[position].change else { return false }
                return true
            }
            if let lastRemoval, try await !SharedRoster.isRewritten(after: lastRemoval, with: context.client) {
                let items = try context.vault.itemIDs(signedByNoneOf: Set(state.members.keys))
                let (rewritten, failed) = try await SharedRoster.clearAuthorPermissions(with: context.client, items: items)
                if failed == 0 { try await SharedRoster.markRewritten(after: lastRemoval, with: context.client) }
                context.logger.info("roster: a removal seen; \(rewritten) record(s) rewritten without their authors' permissions, \(failed) not")
            }
        }
        try await checkPermissions(state, context, rosterChanged: served.count > stored.count)
    }

    /// How often an unchanged roster's permissions are checked.
    static let permissionsCheckInterval: TimeInterval = 24 * 60 * 60

    /// Brings the bucket's permissions back to what the roster implies when they differ (an
    /// account no member uses, another group, the members' group gone from `write`). It costs
    /// about eight GETs, so an idle sync does not pay it: only when the roster changed (a removal
    /// is when a stranger's access matters most, and whoever left could not take their own off)
    /// or once a day (`meta.permissions_checked`), which bounds how long a member's meddling
    /// outlives a day of syncs. Members' own accounts are left alone: Kinto puts each writer on
    /// what it writes, and members rewriting each other's would never settle.
    static func checkPermissions(_ state: RosterState, _ context: SyncContext, rosterChanged: Bool) async throws {
        let database = context.database
        let now = context.now()
        if !rosterChanged, let checked = try database.meta(.permissionsChecked).flatMap({ TimeInterval($0) }),
           now.timeIntervalSince1970 - checked < permissionsCheckInterval, now.timeIntervalSince1970 >= checked { return }
        let accounts = Set(state.members.values.map { "account:\($0.person.account)" })
        let outcome: SharedPermissions.Outcome
        do {
            outcome = try await SharedPermissions.restore(with: context.client, allowing: accounts)
        } catch {
            // Not worth failing the sync for: the next one tries again (no mark is left).
            context.logger.warning("roster: the bucket's permissions could not be checked: \(error)")
            return
        }
        if !outcome.fixed.isEmpty {
            context.logger.info("roster: restored \(outcome.fixed.map(\.description).joined(separator: ", ")) to what the roster implies")
        }
        for left in outcome.unresolved { context.logger.warning("roster: on the server, \(left)") }
        try database.setMeta(.permissionsChecked, String(Int64(now.timeIntervalSince1970)))
    }

    /// The roster as the server serves it, and the marker to keep once it is stored: the changes
    /// since the stored chain's marker (a 304 when nothing changed, the idle sync's case), or the
    /// whole listing the first time.
    static func fetch(continuing stored: [RosterEntry], _ context: SyncContext, vault: String) async throws
        -> (entries: [RosterEntry], marker: String?) {
        guard !stored.isEmpty, let marker = try context.database.meta(.rosterMarker) else {
            return try await SharedRoster.servedWithMarker(by: context.client, vault: vault)
        }
        switch try await context.client.listChanges(named: RosterRecord.collection, since: marker, pageSize: nil) {
        case .notModified: return (stored, nil)
        case .changes(let records, let etag):
            // What a 404 comes back as (`KintoClient.listChanges`): the roster's collection is
            // gone, which no member does. A real change has a new ETag.
            guard !records.isEmpty || etag != marker else {
                throw RosterRefusal(vault: vault, reason: .malformed("the server no longer serves it."))
            }
            return (try SharedRoster.merge(records, into: stored, vault: vault), etag)
        }
    }

    /// A newer epoch than this copy's key: the key sealed to this person is fetched (ciphertext,
    /// so while locked too) and kept for the next unlock, which opens and checks it.
    static func fetchNewerSeal(_ state: RosterState, _ context: SyncContext) async throws {
        let database = context.database
        let known = (try database.meta(.shareEpoch)).flatMap { UInt64($0) } ?? 1
        guard state.epoch > known, let person = try database.meta(.sharePerson),
              try database.meta(.sharePendingSeal)?.hasPrefix("\(state.epoch) ") != true else { return }
        let id = EpochSeal.id(epoch: state.epoch, personID: person)
        guard let record = try await context.client.record(in: EpochSeal.collection, id: id),
              let sealed = record.fields["seal"], sealed.utf8.count <= 256 else {
            context.logger.warning("roster: epoch \(state.epoch) began but no key is sealed to this person yet")
            return
        }
        // Only while the copy is still behind: an unlock in another process may have taken this
        // epoch during the fetch, and a seal kept for it would read as "newer" forever.
        let kept = try context.vault.keepPendingSeal(sealed, epoch: state.epoch)
        guard kept else { return }
        context.logger.info("roster: the key of epoch \(state.epoch) arrived; it is taken at the next unlock")
    }

    /// Takes out of the members' group every account no member of `state` syncs with.
    static func dismissStrangers(_ state: RosterState, client: KintoClient) async throws -> Int {
        let accounts = Set(state.members.values.map { "account:\($0.person.account)" })
        let (principals, _) = try await client.members()
        let strangers = principals.filter { !accounts.contains($0) }
        for principal in strangers {
            try await SharedRoster.dismiss(account: String(principal.dropFirst("account:".count)), with: client)
        }
        return strangers.count
    }
}
