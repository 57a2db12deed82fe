import Foundation
import GRDB

/// One item changed both here and on the server, as reconcile reads it from the vault.
struct ReconcilePair {
    var facts: ReconcileFacts
    /// The server version both sides were made from (the stable row), if the vault holds one.
    var stable: ItemRecord?

    /// Every pair of the vault: a remote pending row with a local one for the same id.
    static func all(in db: Database, ring: KeyRing) throws -> [ReconcilePair] {
        try VaultDatabase.pendingChanges(.items, source: .remote, in: db).compactMap { remoteChange in
            guard let localChange = try VaultDatabase.pendingChange(.items, remoteChange.id, source: .local, in: db) else {
                return nil
            }
            let facts = ReconcileFacts(local: try VaultDatabase.decodeStored(ItemRecord.self, localChange.record),
                                       remote: try VaultDatabase.decodeStored(ItemRecord.self, remoteChange.record),
                                       hasKey: ring.contains(remoteChange.id))
            return ReconcilePair(facts: facts, stable: try VaultDatabase.stableItem(remoteChange.id, in: db))
        }
    }
}

/// What reconcile does with one pair, worked out without the database.
enum ReconcileOutcome {
    /// Left in conflict for a later sync (`ReconcileDecision.wait`).
    case wait
    /// The server's version already holds ours.
    case acceptRemote(ItemRecord)
    /// Ours, sealed on top of the server's version, which nobody can read.
    case replace(remote: ItemRecord, ours: ItemRecord)
    /// The merge, sealed on top of the server's version, and its review (⚑) sealed as the
    /// `reviews` table keeps it (base64; nil without the item key, then not kept).
    case merge(remote: ItemRecord, ours: ItemRecord, review: ItemReview, sealedReview: String?)
}

/// Decides, opens, merges and seals the pairs: pure work on the pairs and the key ring, one pair
/// independent of the next, so it runs on every core while the write transaction waits for it
/// (1,000 conflicts on unlock were ~100 ms on one core, three quarters of it here).
enum ReconcileWork {
    /// One outcome per pair, in their order; a pair that failed gives its error there. `now` stamps
    /// the merged fields, `revisionTime` the new versions' lineages (`Vault.writeTimes`).
    static func outcomes(of pairs: [ReconcilePair], ring: KeyRing, now: Timestamp,
                         revisionTime: Timestamp) -> [Result<ReconcileOutcome, Error>] {
        var results = [Result<ReconcileOutcome, Error>](repeating: .success(.wait), count: pairs.count)
        // A few pairs per task: one each would cost more in dispatch than a small merge.
        let chunk = 32
        let chunks = (pairs.count + chunk - 1) / chunk
        results.withUnsafeMutableBufferPointer { slots in
            let slots = SendableSlots(base: slots.baseAddress)
            DispatchQueue.concurrentPerform(iterations: chunks) { index in
                for position in (index * chunk)..<min(pairs.count, (index + 1) * chunk) {
                    slots.base?[position] = Result {
                        try outcome(of: pairs[position], ring: ring, now: now, revisionTime: revisionTime)
                    }
                }
            }
        }
        return results
    }

    static func outcome(of pair: ReconcilePair, ring: KeyRing, now: Timestamp,
                        revisionTime: Timestamp) throws -> ReconcileOutcome {
        let facts = pair.facts
        var opened: ReconcileFacts.Remote?
        func openRemote() throws -> ReconcileFacts.Remote {
            if let opened { return opened }
            let result: ReconcileFacts.Remote
            do {
                result = .readable(try ItemSealing.open(facts.remote, ring: ring))
            } catch CoreError.tampered {
                result = .unreadable  // only a failed authentication; anything else is thrown
            }
            opened = result
            return result
        }
        switch try ReconcileRules.decide(facts, remote: openRemote) {
        case .wait:
            return .wait
        case .alreadyOurs:
            return .acceptRemote(facts.remote)
        case .replaceUnreadable:
            // Nobody can read the server's copy (every device seals with the same item key):
            // ours replaces it, based on its version so the push is accepted and other
            // devices do not take ours for an older version.
            let local = try ItemSealing.open(facts.local, ring: ring)
            let ours = try ItemSealing.seal(local, ring: ring,
                                            lineage: .following(facts.remote.encrypted, outranking: facts.local.encrypted, now: revisionTime),
                                            lastModified: facts.remote.lastModified)
            return .replace(remote: facts.remote, ours: ours)
        case .merge:
            let local = try ItemSealing.open(facts.local, ring: ring)
            guard case .readable(let remote) = try openRemote() else { return .wait }
            // An unreadable or unusable base is no base: the merge then keeps local scalars and unions sets.
            var stable: Item?
            if let record = pair.stable, ReconcileRules.isUsableBase(record, against: facts.remote) {
                do { stable = try ItemSealing.open(record, ring: ring) } catch CoreError.tampered { stable = nil }
            }
            // Our side only sealed the item again (a new key ring generation, §17), or both made
            // the same change: the server's version stands, unless only a retired key opens it.
            if local == remote || local == stable,
               (try? ItemSealing.open(facts.remote, ring: ring, allowingRetired: false)) != nil {
                return .acceptRemote(facts.remote)
            }
            let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now,
                                          remoteServerTime: Timestamp(milliseconds: facts.remote.lastModified))
            // Made from remote, and newer than ours (which is newer than stable) even when
            // remote is an older version the server served back.
            let ours = try ItemSealing.seal(outcome.merged, ring: ring,
                                            lineage: .following(facts.remote.encrypted, outranking: facts.local.encrypted, now: revisionTime),
                                            lastModified: facts.remote.lastModified)
            let review = ItemReview(outcome: outcome)
            return .merge(remote: facts.remote, ours: ours, review: review,
                          sealedReview: try ItemReviewSealing.seal(review, ring: ring))
        }
    }

    /// The results' memory, written by the workers at distinct positions only.
    private struct SendableSlots: @unchecked Sendable {
        let base: UnsafeMutablePointer<Result<ReconcileOutcome, Error>>?
    }
}
