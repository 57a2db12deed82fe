import CofferCore
import Foundation

/// Fetch's check of a shared vault's item versions (issue 42, architecture §17): a version goes
/// on only if a member of the newest verified roster signed it (`ItemSignature`). Runs locked —
/// the roster's public keys are all it needs — so nothing a removed member wrote, whoever lent
/// them an account, replaces what a device holds.
///
/// Two versions pass unsigned, for what was written before signatures (2026-12-07) or by an older
/// version: the server's copy of the version stable already holds (a restamp: it keeps stable's
/// signature), and anything in a first download, which replaces nothing. An unsigned edit of an
/// item a device holds is refused like a forged one: every member must run a version that signs.
struct SignatureGate {
    let checker: ItemSignature.Checker
    /// Verdicts worked out before the fetch's transaction, by record id (`checkingAhead`).
    private(set) var verdicts: [String: ItemSignature.Verdict] = [:]

    enum Judgement {
        case accept(IncomingRecord)
        case refuse
    }

    /// The gate for `context`'s vault, or nil for a personal vault (its items are not signed).
    static func make(_ context: SyncContext) throws -> SignatureGate? {
        guard let vaultID = context.vault.sharedVaultID else { return nil }
        switch RosterChain.verify(entries: try context.vault.verifiedRoster(), vaultID: vaultID) {
        case .success(let state):
            return SignatureGate(checker: ItemSignature.Checker(vaultID: vaultID, members: state.members))
        case .failure(let problem):
            // The roster step verified and stored it this sync: a stored chain that fails now was
            // changed underneath, and nothing can be judged by it.
            throw CoreError.tampered(what: "the stored roster does not verify: \(problem)")
        }
    }

    /// The gate for these records: when one claims a signer the stored roster does not list, the
    /// roster is read again first — a person added after this sync's roster step may have written
    /// already (their `add` is on the server before their first write), and their version must
    /// not be refused, or the marker would move past it for good.
    static func current(for records: [IncomingRecord], _ context: SyncContext) async throws -> SignatureGate? {
        guard let gate = try make(context), let vaultID = context.vault.sharedVaultID else { return nil }
        let strangers = records.contains { record in
            guard case .item(let item) = record.value, let claimed = ItemSignature.claimedSigner(of: item.signature) else { return false }
            return !gate.checker.knows(claimed)
        }
        guard strangers else { return gate.checkingAhead(records) }
        try await RosterStep.run(context, vaultID: vaultID)
        return try make(context)?.checkingAhead(records)
    }

    /// This gate with every record's verdict worked out on every core: an Ed25519 check is ~60 µs,
    /// 0.6 s of one core for a 10,000-item first download, and the fetch's transaction (which
    /// holds the vault's write lock) should not wait for it.
    func checkingAhead(_ records: [IncomingRecord]) -> SignatureGate {
        let items = records.compactMap { record -> ItemRecord? in
            guard case .item(let item) = record.value, !item.isPlainTombstone, item.signature != nil else { return nil }
            return item
        }
        guard items.count > 1 else { return self }
        let slices = min(items.count, max(1, ProcessInfo.processInfo.activeProcessorCount) * 4)
        let results = VerdictSlots(count: items.count)
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            for index in stride(from: slice, to: items.count, by: slices) { results.set(index, checker.verdict(items[index])) }
        }
        var gate = self
        gate.verdicts = Dictionary(zip(items.map(\.id), results.values), uniquingKeysWith: { first, _ in first })
        return gate
    }

    /// Whether `record` may go on to fetch's rules; `stable` reads the version this device holds.
    func judge(_ record: IncomingRecord, firstDownload: Bool, stable: () throws -> ItemRecord?) rethrows -> Judgement {
        // A plain tombstone carries nothing to check: fetch's rules refuse it (`refuseTombstone`).
        // A sealed removal is a version like any other: a current member must have signed it.
        guard case .item(let item) = record.value, !item.isPlainTombstone else { return .accept(record) }
        let verdict = verdicts[item.id] ?? checker.verdict(item)
        if case .member = verdict { return .accept(record) }
        if verdict == .unsigned, firstDownload { return .accept(record) }
        guard let held = try stable(), Self.sameVersion(held, item) else { return .refuse }
        var restamped = item
        restamped.signature = held.signature
        return .accept(IncomingRecord(header: record.header, value: .item(restamped)))
    }

    /// The same version whatever its signature: what the signature covers is equal.
    static func sameVersion(_ a: ItemRecord, _ b: ItemRecord) -> Bool {
        a.id == b.id && a.isActive == b.isActive && a.originHashes == b.originHashes && a.tagHashes == b.tagHashes
            && a.encrypted == b.encrypted
    }

    /// What goes up over a refused version: this device's local change, else its stable version,
    /// based on the refused one's timestamp so the server takes it. Nil when the device holds
    /// neither (a version of an item it never had: refused, and nothing to put back).
    static func putBack(_ header: SyncRecordHeader, in store: SyncStore) throws -> PendingChange? {
        if var local = try store.pendingChange(.items, header.id, source: .local) {
            local.key = nil
            local.lastModified = header.lastModified
            return local
        }
        guard let stable = try store.stableText(.items, header.id) else { return nil }
        return PendingChange(collection: .items, id: header.id, source: .local, action: .update,
                             lastModified: header.lastModified, record: stable)
    }
}

/// One verdict per record, each written by the one task that checked it.
private final class VerdictSlots: @unchecked Sendable {
    private var slots: [ItemSignature.Verdict]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: .unsigned, count: count) }

    func set(_ index: Int, _ verdict: ItemSignature.Verdict) {
        lock.lock()
        slots[index] = verdict
        lock.unlock()
    }

    var values: [ItemSignature.Verdict] { lock.withLock { slots } }
}
