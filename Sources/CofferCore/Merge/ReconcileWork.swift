import Foundation
import GRDB

/// One item changed both here and on the server, as reconcile reads it from the vault: the two
/// pending records still as stored (JSON), decoded by the workers (`facts(ring:)`), not on the
/// database's thread.
struct ReconcilePair {
    /// The two pending rows, for the plan to write over or drop.
    struct Rows {
        var local: Int64
        var localAction: PendingChange.Action?
        var remote: Int64
    }

    var id: String
    var rows: Rows
    var localRecord: String
    var remoteRecord: String
    /// The server version both sides were made from (the stable row), if the vault holds one.
    var stable: ItemRecord?

    /// Every pair of the vault — a remote pending row with a local one for the same id — in the
    /// order the remote rows were recorded (their `key`). One statement: SQLite joins each remote
    /// row to its local and stable rows by index (two lookups each from Swift, and GRDB's columns
    /// by name, had cost a fifth of reconcile).
    static func all(in db: Database) throws -> [ReconcilePair] {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT r.id, l.record, r.record, s.last_modified, s.active, s.origins, s.tags, s.encrypted,
                   l.key, l.action, r.key
            FROM pending AS r
            JOIN pending AS l ON l.source = 'local' AND l.collection = 'items' AND l.id = r.id
            LEFT JOIN items AS s ON s.id = r.id
            WHERE r.source = 'remote' AND r.collection = 'items'
            """)
        var pairs: [ReconcilePair] = []
        // Columns by position: GRDB's by-name lookup compares lowercased names on every access.
        while let row = try rows.next() {
            let id: String = row[0]
            var stable: ItemRecord?
            if let encrypted = row[7] as String? {
                stable = ItemRecord(id: id, isActive: (row[4] as Int) != 0, originHashes: hashes(row[5]),
                                    tagHashes: hashes(row[6]), encrypted: encrypted, lastModified: row[3])
            }
            let rows = Rows(local: row[8], localAction: PendingChange.Action(rawValue: row[9]), remote: row[10])
            pairs.append(ReconcilePair(id: id, rows: rows, localRecord: row[1], remoteRecord: row[2], stable: stable))
        }
        // In Swift, not by ORDER BY: SQLite sorted the whole rows, records and all, through a
        // temporary file.
        return pairs.sorted { $0.rows.remote < $1.rows.remote }
    }

    /// The pair's records decoded, with whether `ring` holds the item's key.
    func facts(ring: KeyRing) throws -> ReconcileFacts {
        ReconcileFacts(local: try VaultDatabase.decodeStored(ItemRecord.self, localRecord),
                       remote: try VaultDatabase.decodeStored(ItemRecord.self, remoteRecord),
                       hasKey: ring.contains(id))
    }

    /// A stable row's hash column (`VaultDatabase.saveStableItem` joins them with spaces).
    private static func hashes(_ text: String) -> [String] {
        text.isEmpty ? [] : text.split(separator: " ").map(String.init)
    }
}

/// What reconcile does with one pair, worked out without the database.
enum ReconcileOutcome {
    /// Left in conflict for a later sync (`ReconcileDecision.wait`).
    case wait
    /// The server's version already holds ours.
    case acceptRemote(ItemRecord)
    /// Ours, sealed on top of the server's version, which nobody can read, as the local change to store.
    case replace(remote: ItemRecord, ours: PendingChange)
    /// The merge, sealed on top of the server's version, as the local change to store, and its
    /// review (⚑) sealed as the `reviews` table keeps it (base64; nil without the item key, then
    /// not kept).
    case merge(remote: ItemRecord, ours: PendingChange, review: ItemReview, sealedReview: String?)
}

/// Decides, opens, merges and seals the pairs: pure work on the pairs and the key ring, one pair
/// independent of the next, so it runs on every core while the write transaction waits for it
/// (1,000 conflicts on unlock were ~100 ms on one core, three quarters of it here).
enum ReconcileWork {
    /// Pairs per batch: a task of the workers, and a write of the caller's. One pair each would
    /// cost more in dispatch than a small merge.
    static let batchSize = 32

    /// Works out every pair on every core and hands `body` each batch's outcomes — one per pair,
    /// in their order, a pair that failed giving its error there — on the calling thread, batch
    /// after batch, as soon as a batch is done: the caller writes one batch while the workers
    /// work out the next (the writes had waited for the whole work, a fifth of reconcile).
    ///
    /// The calling thread is one of the workers: when the next batch to write is not done, it
    /// works out the next batch nobody has taken (a worker thread of `concurrentPerform` had
    /// left it waiting, one core idle), so the work also ends if no worker thread ever starts.
    /// Returns only when no batch is being worked out any more, also when `body` throws.
    ///
    /// `now` stamps the merged fields, `revisionTime` the new versions' lineages (`Vault.writeTimes`).
    static func forEachBatch(of pairs: [ReconcilePair], ring: KeyRing, signer: ItemSigner? = nil, now: Timestamp, revisionTime: Timestamp,
                             _ body: (ArraySlice<ReconcilePair>, UnsafeBufferPointer<Result<ReconcileOutcome, Error>>) throws -> Void)
        rethrows {
        guard !pairs.isEmpty else { return }
        var results = [Result<ReconcileOutcome, Error>](repeating: .success(.wait), count: pairs.count)
        let batches = (pairs.count + batchSize - 1) / batchSize
        let done = (0..<batches).map { _ in DispatchSemaphore(value: 0) }
        let claims = BatchClaims(count: batches)
        try results.withUnsafeMutableBufferPointer { buffer in
            let slots = SendableSlots(base: buffer.baseAddress)
            let work: @Sendable (Int) -> Void = { index in
                for position in range(of: index, in: pairs) {
                    slots.base?[position] = Result {
                        try outcome(of: pairs[position], ring: ring, signer: signer, now: now, revisionTime: revisionTime)
                    }
                }
                done[index].signal()
            }
            // One worker fewer than cores: the calling thread is one.
            for _ in 1..<max(2, ProcessInfo.processInfo.activeProcessorCount) {
                DispatchQueue.global().async {
                    while let index = claims.next() { work(index) }
                }
            }
            var written = 0
            // No batch starts after this, and those under way end before `results` goes away.
            defer { for index in written..<claims.close() { done[index].wait() } }
            while written < batches {
                // Write the next batch if it is done, else work one out, else wait for it.
                if done[written].wait(timeout: .now()) != .success {
                    if let index = claims.next() {
                        work(index)
                        continue
                    }
                    done[written].wait()
                }
                let batch = range(of: written, in: pairs)
                written += 1
                try body(pairs[batch], UnsafeBufferPointer(rebasing: buffer[batch]))
            }
        }
    }

    private static func range(of batch: Int, in pairs: [ReconcilePair]) -> Range<Int> {
        (batch * batchSize)..<min(pairs.count, (batch + 1) * batchSize)
    }

    /// `signer` signs what it seals, in a shared vault.
    static func outcome(of pair: ReconcilePair, ring: KeyRing, signer: ItemSigner? = nil, now: Timestamp,
                        revisionTime: Timestamp) throws -> ReconcileOutcome {
        let facts = try pair.facts(ring: ring)
        var opened: ReconcileFacts.Remote?
        func openRemote() throws -> ReconcileFacts.Remote {
            if let opened { return opened }
            let result: ReconcileFacts.Remote
            do {
                result = .readable(try ItemSealing.openFetched(facts.remote, ring: ring))
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
                                            lastModified: facts.remote.lastModified, signer: signer)
            return .replace(remote: facts.remote, ours: try localChange(ours))
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
                                            lastModified: facts.remote.lastModified, signer: signer)
            var review = ItemReview(outcome: outcome)
            review.remoteSigner = ItemSignature.claimedSigner(of: facts.remote.signature)
            return .merge(remote: facts.remote, ours: try localChange(ours), review: review,
                          sealedReview: try ItemReviewSealing.seal(review, ring: ring))
        }
    }

    /// `record` as the local change reconcile stores (encoded here, on the worker's core).
    private static func localChange(_ record: ItemRecord) throws -> PendingChange {
        PendingChange(collection: .items, id: record.id, source: .local, action: .update,
                      lastModified: record.lastModified, record: try RecordCoding.encode(record))
    }

    /// Hands out batch numbers in order, each once, to the workers and the calling thread.
    private final class BatchClaims: @unchecked Sendable {
        private let lock = NSLock()
        private var following = 0
        private let count: Int

        init(count: Int) { self.count = count }

        /// The next batch nobody has taken.
        func next() -> Int? {
            lock.withLock {
                guard following < count else { return nil }
                following += 1
                return following - 1
            }
        }

        /// Hands out nothing more; returns how many batches were taken.
        func close() -> Int {
            lock.withLock {
                let taken = following
                following = count
                return taken
            }
        }
    }

    /// The results' memory, written by the workers at distinct positions only.
    private struct SendableSlots: @unchecked Sendable {
        let base: UnsafeMutablePointer<Result<ReconcileOutcome, Error>>?
    }
}
