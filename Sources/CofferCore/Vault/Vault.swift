import Crypto
import Foundation
import GRDB

/// An open vault: its file, and its keys while unlocked.
///
/// Locked means `session` is nil: no key exists in memory. Every edit goes to `pending` as a local
/// change in one transaction together with any keystore change it needs.
public actor Vault {
    public nonisolated let database: VaultDatabase
    var session: UnlockedSession?
    private let clock: @Sendable () -> Timestamp
    /// The items the last full listing opened, by id (see `listItems()`); empty while locked.
    private var lastListing = OpenedItems()
    /// How the last `searchItems` used the search index: rows it skipped unopened, rows it opened.
    package private(set) var lastSearch = (skipped: 0, opened: 0)
    /// When this process last unlocked the vault: a remote lock sent before it is ignored.
    public private(set) var unlockedAt: Timestamp?
    /// A shared vault's, while unlocked: the person's passphrase keys (a copy) and the epoch whose
    /// key the session opened with. Another process, or a sync, may give the vault a newer epoch's
    /// keys; with these the session takes them in place of going stale (`Vault+NewEpoch.swift`).
    var member: (keys: PassphraseKeys, epoch: UInt64)?

    init(database: VaultDatabase, clock: @escaping @Sendable () -> Timestamp, session: UnlockedSession? = nil) {
        self.database = database
        self.clock = clock
        self.session = session
        self.unlockedAt = session == nil ? nil : clock()
    }

    /// Creates a vault with a fresh key ring sealed under `passphrase`; the vault is left unlocked.
    public static func create(at path: String, passphrase: SecureBuffer, kdf: KDFParameters,
                              deviceName: String = Vault.defaultDeviceName, meta: [MetaKey: String] = [:],
                              clock: @escaping @Sendable () -> Timestamp = { .now() }) throws -> Vault {
        guard passphrase.count > 0 else { throw CoreError.emptyPassphrase }
        try kdf.checkStrength()
        let keys = try PassphraseKeys(passphrase: passphrase, parameters: kdf)
        let ring = KeyRing()
        let vaultKey = SecureBuffer.random(count: KeyRing.keyLength)
        let keystore = try KeystoreSealing.seal(ring, vaultKey: vaultKey, keys: keys, kdf: kdf, lineage: .first,
                                                lastModified: 0)
        let database = try VaultDatabase.create(at: path) { db in
            try VaultDatabase.recordLocalChange(keystore, in: db)
            try Vault.writeDeviceMeta(deviceName: deviceName, created: clock(), in: db)
            for (key, value) in meta { try VaultDatabase.setMeta(key, value, in: db) }
        }
        return Vault(database: database, clock: clock,
                     session: UnlockedSession(keys: keys, ring: ring, vaultKey: vaultKey, kdf: kdf))
    }

    /// Opens a vault without unlocking it: status, sync and locking need no passphrase.
    public static func open(at path: String, clock: @escaping @Sendable () -> Timestamp = { .now() }) throws -> Vault {
        Vault(database: try VaultDatabase.open(at: path), clock: clock)
    }

    public static var defaultDeviceName: String { ProcessInfo.processInfo.hostName }

    static func writeDeviceMeta(deviceName: String, created: Timestamp, in db: Database) throws {
        try VaultDatabase.setMeta(.vaultID, Item.newID(), in: db)
        try VaultDatabase.setMeta(.deviceID, Item.newID(), in: db)
        try VaultDatabase.setMeta(.deviceName, deviceName, in: db)
        try VaultDatabase.setMeta(.created, created.iso8601, in: db)
    }

    public var isLocked: Bool { session == nil }

    /// Derives the keys from `passphrase` and opens the keystore.
    ///
    /// - Throws: `wrongPassphrase`, `kdfDowngrade`, or `tampered`.
    ///
    /// When a keystore from another device waits in `pending` under a newer passphrase (changed
    /// there), that passphrase opens the vault instead: both wrap the same vault key, and once the
    /// newer wrapping is authenticated (`KeystoreWrappingTag`, by the vault key the given passphrase
    /// opened) the older passphrase is refused, as the next unlocked sync would make it anyway. A
    /// waiting keystore whose wrapping is not provably newer (a replay, a forgery) never opens it.
    ///
    /// Returns the person's passphrase keys, a copy of the caller's own (locking wipes the
    /// session's, not these): `unlock(keys:)` opens the other vaults of that passphrase with them.
    @discardableResult
    public func unlock(passphrase given: SecureBuffer) throws -> PassphraseKeys {
        // A shared vault's keystore opens with its epoch key, which the person's passphrase opens.
        if sharedVaultID != nil { return try unlockShared(passphrase: given) }
        return try unlockKeystore(passphrase: given).copied()
    }

    /// `unlock` with the passphrase the keystore is wrapped under; the keys it was opened with.
    @discardableResult
    func unlockKeystore(passphrase: SecureBuffer) throws -> PassphraseKeys {
        // The passphrase's keys first (Argon2id's 64 MiB), then the keystore, whose ring holds a
        // key per item (9 MB of JSON at 100,000 items): read before, it was in memory beside them.
        let wrapping = try? database.read(VaultDatabase.currentKeystoreWrapping)
        try wrapping?.kdf.checkStrength()
        let keys = try wrapping.map { try PassphraseKeys(passphrase: passphrase, parameters: $0.kdf) }
        let (current, remote) = try database.read { db in
            (try VaultDatabase.currentKeystore(in: db),
             try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .remote, in: db)
                .map { try VaultDatabase.decodeStored(KeystoreRecord.self, $0.record) })
        }
        guard let current else { throw CoreError.notAVault(path: database.path, reason: "it has no keystore") }
        let opened: OpenedKeystore
        do {
            if let keys, let wrapping, wrapping.kdf == current.kdf, wrapping.verifier == current.verifier {
                opened = try KeystoreSealing.open(current, keys: keys)
            } else {
                // Changed between the two reads (a passphrase changed meanwhile), or unreadable
                // in part: derived again from the record itself, which also says what is wrong.
                opened = try KeystoreSealing.open(current, passphrase: passphrase)
            }
        } catch CoreError.wrongPassphrase where remote != nil && remote?.isDeleted == false {
            // The passphrase may be the one set on another device: it opens the vault key there,
            // and the vault key opens this device's own key ring.
            guard let remote, !remote.hasSameWrapping(as: current) else { throw CoreError.wrongPassphrase }
            let newer = try KeystoreSealing.open(remote, passphrase: passphrase)
            guard Self.waitingWrappingWins(remote, over: current, vaultKey: newer.vaultKey) else { throw CoreError.wrongPassphrase }
            // The same vault key (a passphrase changed there), or new keys made at a device's
            // removal, whose earlier vault keys open this copy's ring (§9): the passphrase that
            // opened them is one the removed device never saw, so the new generation is taken.
            let ring = try (try? KeystoreSealing.openRing(current, vaultKey: newer.vaultKey))
                ?? Self.ringSucceeding(current, with: newer.ring, personal: sharedVaultID == nil)
            opened = OpenedKeystore(ring: ring, vaultKey: newer.vaultKey, passphraseKeys: newer.passphraseKeys, kdf: newer.kdf)
        }
        let openedWithWaiting = remote.map { opened.kdf == $0.kdf && opened.passphraseKeys.verifier == $0.verifier } ?? false
        // The ring of a keystore that waits for an unlocked sync (`SyncContext.holdsUntilAuthenticated`),
        // opened once: only the vault key opens it, so it is ours (9 MB of keys at 100,000 items).
        let waitingRing = remote.flatMap { $0.isDeleted ? nil : try? KeystoreSealing.openRing($0, vaultKey: opened.vaultKey) }
        if let remote, waitingRing != nil, !openedWithWaiting, !remote.hasSameWrapping(as: current),
           Self.waitingWrappingWins(remote, over: current, vaultKey: opened.vaultKey) {
            // A newer passphrase reached this device: the one given is an old one.
            throw CoreError.wrongPassphrase
        }
        // Its keys open their items at once.
        if let waitingRing, sharedVaultID == nil { opened.ring.formUnion(with: waitingRing) }
        session = UnlockedSession(keys: opened.passphraseKeys, ring: opened.ring, vaultKey: opened.vaultKey, kdf: opened.kdf,
                                  ringSource: RingSource(current.encrypted))
        unlockedAt = clock()
        return opened.passphraseKeys
    }

    /// Whether the passphrase wrapping of `waiting` (the server's keystore, not yet reconciled) is
    /// the one reconcile would keep over `current`'s (`KeystoreReconcileRules.wrappingSide`).
    static func waitingWrappingWins(_ waiting: KeystoreRecord, over current: KeystoreRecord, vaultKey: SecureBuffer) -> Bool {
        KeystoreReconcileRules.wrappingSide(local: KeystoreWrappingTag.claim(of: current, vaultKey: vaultKey),
                                            remote: KeystoreWrappingTag.claim(of: waiting, vaultKey: vaultKey),
                                            remoteIsOlder: Lineage.isOlder(waiting.encrypted, than: current.encrypted),
                                            localChangedWrapping: false) == .remote
            && (try? waiting.kdf.checkStrength()) != nil
    }

    /// `unlockKeystore` with the keys already derived: those of `current`'s verifier, or `wrongPassphrase`.
    func unlockKeystore(keys: PassphraseKeys, current: KeystoreRecord) throws {
        guard keys.matches(verifier: current.verifier) else { throw CoreError.wrongPassphrase }
        let opened = try KeystoreSealing.open(current, keys: keys.copied())
        session = UnlockedSession(keys: opened.passphraseKeys, ring: opened.ring, vaultKey: opened.vaultKey, kdf: opened.kdf,
                                  ringSource: RingSource(current.encrypted))
        unlockedAt = clock()
    }

    /// Drops every key: the buffers are wiped now and freed with the session.
    public func lock() {
        lastListing = OpenedItems()
        member?.keys.wrappingKey.wipe()
        member = nil
        session?.ring.wipe()
        session?.vaultKey.wipe()
        session?.keys.wrappingKey.wipe()
        session = nil
        unlockedAt = nil
    }

    func unlockedSession() throws -> UnlockedSession {
        guard let session else { throw CoreError.locked }
        return session
    }

    /// The time this device writes (modified, history, field times): its clock corrected by the
    /// offset the last sync measured against the server (the Airmail journal). Read each time: a sync in
    /// another process may have measured it since. Never call it inside a write (it reads).
    var now: Timestamp { writeTimes.now }

    /// `now`, and the time a new version's lineage revision is at least (`Lineage.following`):
    /// the earliest the server's clock can read now. `now` may be up to a second ahead of the
    /// server's clock; a revision never is, so it stays at or below the server's time of the push
    /// that takes it up (Kinto's times grow with every push, and revisions grow by one), and a
    /// version re-created over a tombstone outranks every version removed before it
    /// (`floorRevisions`). A randomized history found a revision ahead of that.
    var writeTimes: (now: Timestamp, revision: Timestamp) {
        let device = clock()
        guard let skew = database.clockSkew else { return (device, device) }
        return (skew.corrected(device), skew.earliest(device))
    }

    // MARK: Reading

    /// Every item as this device sees it, decrypted where its key is here.
    ///
    /// Remembers what it opened until the next full listing or lock, so listing again after
    /// another process committed (the screen's reload) opens only the records that changed.
    public func listItems() throws -> [ListedItem] {
        try listItems(reportingFirst: Int.max) { _ in }
    }

    /// `listItems()`, also handing `report` the items opened so far: after the first `first`, then
    /// each time the count has grown fourfold. The screen draws its first page from the first
    /// report while the rest of a large vault is opened.
    public func listItems(reportingFirst first: Int, _ report: ([ListedItem]) -> Void) throws -> [ListedItem] {
        // A shared vault given new keys by another process since this session opened: taken first.
        try reopenIfStale()
        // Taken out while it is updated, so it is not copied; a listing that throws leaves none.
        var cache: OpenedItems? = lastListing
        lastListing = OpenedItems()
        var next = max(1, first)
        var noIndex: SearchIndexPass?
        let listed = try listItems(where: { _ in true }, remembering: &cache, searching: &noIndex) { kept in
            guard kept.count >= next else { return }
            report(kept)
            next = kept.count.multipliedReportingOverflow(by: 4).overflow ? Int.max : kept.count * 4
        }
        lastListing = cache ?? OpenedItems()
        return listed
    }

    /// The items `include` accepts (and every one that cannot be read, with its state), decrypting
    /// one record at a time: what a search keeps in memory is its matches, not the vault.
    public func listItems(where include: @Sendable (Item) -> Bool) throws -> [ListedItem] {
        var unused: OpenedItems?
        var noIndex: SearchIndexPass?
        return try listItems(where: include, remembering: &unused, searching: &noIndex)
    }

    /// `listItems(where:)` for a search: `include` accepts only items `matcher` matches, so the
    /// rows the sealed search index shows lack a word are skipped unopened. The index is brought
    /// up to date afterwards when it was not (a cache: failing to store it changes nothing the
    /// search returns).
    public func searchItems(_ matcher: ItemMatcher, where include: @Sendable (Item) -> Bool) throws -> [ListedItem] {
        guard let words = matcher.indexableWords else { return try listItems(where: include) }
        let keys = SearchIndexKeys(vaultKey: try unlockedSession().vaultKey)
        // A chunk that does not open (another vault's, damaged) stays empty: its rows are opened.
        var stored: [SearchIndex] = []
        try? database.read { db in
            try VaultDatabase.forEachSealedSearchIndexChunk(in: db) { number, sealed in
                guard number >= stored.count, number < SearchIndex.maximumChunks else { return }
                stored.append(contentsOf: repeatElement(SearchIndex(), count: number - stored.count))
                stored.append(SearchIndex.open(sealed, number: number, with: keys) ?? SearchIndex())
            }
        }
        var pass: SearchIndexPass? = SearchIndexPass(words: words, stored: stored, keys: keys)
        stored = []
        var unused: OpenedItems?
        let found = try listItems(where: include, remembering: &unused, searching: &pass)
        lastSearch = (pass?.skipped ?? 0, pass?.opened ?? 0)
        if let sealed = Self.sealedNextIndex(taking: &pass) {
            // A read-only or full disk, or another process holding the vault: the next search
            // opens what this one did.
            _ = try? database.write { try VaultDatabase.saveSearchIndex(sealed, in: $0) }
        }
        return found
    }

    /// The chunks of the index `pass` leaves, sealed (nil for a chunk left as stored), or nil
    /// when the stored index is still exact. The index read is freed once the next one is built,
    /// and each chunk once it is sealed: at 100,000 items each whole copy is ~20 MB, and
    /// `search`'s peak memory counts those alive at once.
    private static func sealedNextIndex(taking pass: inout SearchIndexPass?) -> [Data?]? {
        guard let keys = pass?.keys, var chunks = pass?.next() else { return nil }
        pass = nil
        var sealed: [Data?] = []
        for number in chunks.indices {
            guard case .rewritten(let chunk) = chunks[number] else {
                sealed.append(nil)
                continue
            }
            guard let data = try? chunk.sealed(number: number, with: keys) else { return nil }
            sealed.append(data)
            chunks[number] = .unchanged
        }
        return sealed
    }

    private func listItems(where include: @Sendable (Item) -> Bool,
                           remembering cache: inout OpenedItems?,
                           searching index: inout SearchIndexPass?,
                           progress: ([ListedItem]) -> Void = { _ in }) throws -> [ListedItem] {
        let session = try unlockedSession()
        var kept: [ListedItem] = []
        kept.reserveCapacity(cache?.count ?? 0)
        var waiting: [CurrentItemRecord] = []
        var reviewed = Set<String>()
        cache?.begin()
        defer { cache?.end(listed: kept) }
        func append(_ id: String, _ state: ListedItem.State, hasLocalChange: Bool, hasConflict: Bool) {
            kept.append(ListedItem(id: id, state: state, hasLocalChange: hasLocalChange, hasConflict: hasConflict,
                                   needsReview: reviewed.contains(id)))
            progress(kept)
        }
        /// Opens one row (or takes the item a listing before opened from the same bytes) and keeps
        /// it if it is a match or unreadable; returns its record when its key is missing.
        func keep(_ row: CurrentItemRow) -> CurrentItemRecord? {
            let state: ListedItem.State
            do {
                let item: Item
                let fingerprint = cache == nil ? 0 : try row.fingerprint()
                let indexed = try index.map { pass in try row.withSealedBytes { pass.keys.fingerprint($0) } }
                if let indexed, index?.skips(row.id, fingerprint: indexed) == true { return nil }
                if let known = cache?.item(row.id, fingerprint: fingerprint) {
                    item = known
                } else {
                    let current = try row.current()
                    do {
                        item = try ItemSealing.open(current.record, ring: session.ring)
                    } catch CoreError.itemKeyMissing {
                        return current
                    }
                    cache?.remember(row.id, fingerprint: fingerprint, item: item)
                }
                if let indexed { index?.opened(row.id, fingerprint: indexed, item: item) }
                guard include(item) else { return nil }
                state = .ready(item)
            } catch {
                state = .corrupt("\(error)")
            }
            append(row.id, state, hasLocalChange: row.hasLocalChange, hasConflict: row.isInConflict)
            return nil
        }
        try database.read { db in
            reviewed = try VaultDatabase.reviewedIDs(in: db)
            try VaultDatabase.forEachCurrentItemRow(in: db) { row in
                if let missing = keep(row) { waiting.append(missing) }
            }
        }
        guard !waiting.isEmpty else { return kept }
        // Keys another process saved since this session unlocked open these now (see refreshRing).
        try refreshRing(session)
        for current in waiting {
            let state: ListedItem.State
            do {
                let item = try ItemSealing.open(current.record, ring: session.ring)
                guard include(item) else { continue }
                state = .ready(item)
            } catch CoreError.itemKeyMissing {
                state = .waitingForKey
            } catch {
                state = .corrupt("\(error)")
            }
            append(current.record.id, state, hasLocalChange: current.hasLocalChange, hasConflict: current.hasConflict)
        }
        return kept
    }

    /// One item, decrypted: `noSuchItem`, `itemKeyMissing` or `tampered` otherwise.
    public func item(_ id: String) throws -> Item {
        let session = try unlockedSession()
        guard let current = try database.read({ try VaultDatabase.currentItem(id, in: $0) }) else {
            throw CoreError.noSuchItem(id: id)
        }
        if !session.ring.contains(id) { try refreshRing(session) }
        return try ItemSealing.open(current.record, ring: session.ring)
    }

    /// Takes in the keys another process saved to the keystore since this session unlocked (a
    /// `coffer add` next to the open screen): without them its items would wait for a key forever.
    func refreshRing(_ session: UnlockedSession) throws {
        guard let stored = try database.read({ try VaultDatabase.currentKeystore(in: $0) }), !stored.isDeleted else { return }
        _ = try? absorbKeystore(stored, into: session)
    }

    // MARK: Writing

    /// Adds a new item (a new key for it goes into the keystore in the same transaction), created
    /// and modified now by the corrected clock: the caller's clock may be the uncorrected one.
    @discardableResult
    public func add(_ item: Item) throws -> Item {
        var item = item
        item.created = now
        item.modified = item.created
        try insert([item], crashLabel: "vault.add")
        return item
    }

    /// Adds every item or none: validation of all comes first, then one transaction.
    public func addAll(_ items: [Item]) throws {
        try insert(items, crashLabel: "vault.add-all")
    }

    private func insert(_ items: [Item], crashLabel: String) throws {
        try reopeningIfStale { try insertOnce(items, crashLabel: crashLabel) }
    }

    private func insertOnce(_ items: [Item], crashLabel: String) throws {
        let session = try unlockedSession()
        for item in items { try ItemValidation.validate(item) }
        var seen = Set<String>()
        for item in items where !seen.insert(item.id).inserted { throw CoreError.duplicateItem(id: item.id) }
        let revisionTime = writeTimes.revision
        CrashPoint.reach("\(crashLabel).before-write")
        try database.write { db in
            for item in items where try VaultDatabase.currentItem(item.id, in: db) != nil {
                throw CoreError.duplicateItem(id: item.id)
            }
            // The keystore is saved whatever addKey answers: a write retried after SQLITE_BUSY runs
            // this body again with the keys already in the ring, and must still store them.
            for item in items { _ = session.ring.addKey(for: item.id) }
            for item in items {
                try VaultDatabase.recordLocalChange(try session.seal(item, lineage: .following(nil, now: revisionTime)), in: db)
            }
            CrashPoint.reach("\(crashLabel).inside-write")
            if !items.isEmpty { try saveKeystore(session, revisionTime: revisionTime, in: db) }
        }
        CrashPoint.reach("\(crashLabel).after-write")
    }

    /// Replaces an item's fields with `edited`'s, applied to the item as stored when the write
    /// begins; history grows when the entry changed. `created` and `history` of `edited` are
    /// ignored: they belong to the stored item. For an edit made from a copy that may have aged
    /// (a form, a review), pass that copy to `update(_:from:)` instead.
    @discardableResult
    public func update(_ edited: Item) throws -> Item {
        try save(edited, from: nil).item
    }

    /// Saves an edit made from `base`, the version the user saw. When another process (or a sync)
    /// changed the item since, the edit is merged into the current version with the sync merge:
    /// fields only one side changed take that side; a field both changed takes this edit, the
    /// other value goes to history and the item is marked ⚑ for review. Nothing is reverted.
    ///
    /// - Throws: `removedMeanwhile` when the item is gone, `invalidItem`, `locked`.
    public func update(_ edited: Item, from base: Item) throws -> SavedEdit {
        try save(edited, from: base)
    }

    /// `acceptingReview`: the edit resolves the item's ⚑ — its review goes in the same transaction
    /// (a new one, for a value another process changed meanwhile, is stored after it).
    func save(_ edited: Item, from base: Item?, acceptingReview: Bool = false) throws -> SavedEdit {
        try reopeningIfStale { try saveOnce(edited, from: base, acceptingReview: acceptingReview) }
    }

    private func saveOnce(_ edited: Item, from base: Item?, acceptingReview: Bool) throws -> SavedEdit {
        let session = try unlockedSession()
        if !session.ring.contains(edited.id) { try refreshRing(session) }
        let (now, revisionTime) = writeTimes
        let device = (try? deviceID()) ?? ""  // stamps the fields this edit changes
        CrashPoint.reach("vault.update.before-write")
        // Read, merge and write in one IMMEDIATE transaction: no other process commits in between.
        let saved = try database.write { db -> SavedEdit in
            guard let stored = try VaultDatabase.currentItem(edited.id, in: db) else {
                if base != nil { throw CoreError.removedMeanwhile(id: edited.id, title: edited.title) }
                throw CoreError.noSuchItem(id: edited.id)
            }
            let current = try ItemSealing.open(stored.record, ring: session.ring)
            let (saved, review) = Self.edit(edited, from: base, over: current, at: now, by: device)
            if acceptingReview { try VaultDatabase.removeReview(edited.id, in: db) }
            if let review { try saveReview(review, ring: session.ring, now: now, in: db) }
            guard saved.item != current else { return saved }
            try ItemValidation.validate(saved.item)
            // Sealed here: the new version is made from the server version stable holds now.
            let stableBase = try VaultDatabase.stableItem(edited.id, in: db)?.encrypted
            let record = try session.seal(saved.item, lineage: .following(stableBase, now: revisionTime))
            try VaultDatabase.recordLocalChange(record, in: db)
            CrashPoint.reach("vault.update.inside-write")
            return saved
        }
        CrashPoint.reach("vault.update.after-write")
        return saved
    }

    /// What saving `edited`, made from `base`, over the `current` version gives (pure): the edit
    /// applied as made when nothing changed since its base, else merged into the current version,
    /// with the review to store when a value both sides changed was overridden.
    static func edit(_ edited: Item, from base: Item?, over current: Item, at now: Timestamp,
                     by device: String = "") -> (SavedEdit, ItemReview?) {
        guard let base, base != current else {
            return (SavedEdit(item: applying(edited, to: current, at: now, by: device), mergedWithNewer: false,
                              conflicts: []), nil)
        }
        let local = applying(edited, to: base, at: now, by: device)
        guard local != base else { return (SavedEdit(item: current, mergedWithNewer: false, conflicts: []), nil) }
        let outcome = ItemMerge.merge(local: local, stable: base, remote: current, now: now, localWasShared: false)
        // A value both changed is the one the edit overrode (lists combine: nothing of them is dropped).
        let overridden = outcome.conflicts.filter { $0.changedOn == .both && $0.lists == nil }.map(\.field.rawValue)
        return (SavedEdit(item: outcome.merged, mergedWithNewer: true, conflicts: overridden),
                overridden.isEmpty ? nil : ItemReview(outcome: outcome))
    }

    /// `stored` with the fields a user edits taken from `edited`; `modified` moves only if
    /// something changed, and each changed field is stamped with `now` and `device`.
    static func applying(_ edited: Item, to stored: Item, at now: Timestamp, by device: String = "") -> Item {
        var item = stored
        item.title = edited.title
        item.origins = edited.origins
        item.disabled = edited.disabled
        item.lastUsed = edited.lastUsed
        item.trashed = edited.trashed  // the trash is an ordinary edit (issue 43)
        // Tags go into history with the entry: a tag added or removed is a change listed there.
        item.replace(entry: edited.entry, tags: edited.tags, at: now)
        item.stampChanges(from: stored, at: now, by: device)
        if item != stored { item.modified = max(now, item.created) }
        return item
    }

    /// Removes an item (its key stays in the keystore: harmless, and another device may still need it).
    public func remove(_ id: String) throws {
        try reopeningIfStale { try removeOnce(id) }
    }

    private func removeOnce(_ id: String) throws {
        let session = try unlockedSession()
        let revisionTime = writeTimes.revision
        CrashPoint.reach("vault.remove.before-write")
        try database.write { db in
            guard let current = try VaultDatabase.currentItem(id, in: db) else { throw CoreError.noSuchItem(id: id) }
            try removeInside(current, session: session, revisionTime: revisionTime, crashLabel: "vault.remove", in: db)
        }
        CrashPoint.reach("vault.remove.after-write")
    }

    /// The removal of `current` inside a write: its files, a sealed removal as its local change, its review.
    func removeInside(_ current: CurrentItemRecord, session: UnlockedSession, revisionTime: Timestamp,
                      crashLabel: String, in db: Database) throws {
        let id = current.record.id
        // Its files go with it (an item whose key has not arrived names none we could have stored).
        for file in (try? ItemSealing.open(current.record, ring: session.ring))?.attachments ?? [] {
            try VaultDatabase.markAttachmentRemoved(file.id, in: db)
        }
        // Sealed, so other devices can tell it from a server's `DELETE` (issue 41).
        let base = try VaultDatabase.stableItem(id, in: db)?.encrypted
        let removal = try session.sealRemoval(of: id, base: base, now: revisionTime)
        try VaultDatabase.recordLocalChange(removal ?? ItemRecord.tombstone(id: id, lastModified: 0), in: db)
        CrashPoint.reach("\(crashLabel).inside-write")
        try VaultDatabase.removeReview(id, in: db)
    }

    /// Re-wraps the keystore under a new passphrase in one transaction: a crash leaves the old or
    /// the new passphrase working, never neither. Item keys and ciphertexts do not change.
    public func changePassphrase(to passphrase: SecureBuffer, kdf requested: KDFParameters) throws {
        let session = try unlockedSession()
        let (keys, kdf) = try newPassphraseKeys(passphrase, kdf: requested, session: session)
        let next = UnlockedSession(keys: keys, ring: session.ring, vaultKey: session.vaultKey, kdf: kdf, signer: session.signer)
        let revisionTime = writeTimes.revision
        CrashPoint.reach("vault.passwd.before-write")
        try database.write { db in
            try takeWaitingKeystore(session, revisionTime: revisionTime, in: db)
            // Keep keys another process added since this session unlocked (see saveKeystore).
            let current = try VaultDatabase.currentKeystore(in: db).flatMap { $0.isDeleted ? nil : $0 }
            if let current { _ = try absorbForWriting(current, into: session) }
            let lineage = Lineage.following(try VaultDatabase.stableKeystore(in: db)?.encrypted, now: revisionTime)
            let record = try KeystoreSealing.seal(next.ring, vaultKey: next.vaultKey, keys: keys, kdf: kdf, lineage: lineage,
                                                  lastModified: 0, replacing: current)
            try VaultDatabase.recordLocalChange(record, in: db)
            CrashPoint.reach("vault.passwd.inside-write")
        }
        CrashPoint.reach("vault.passwd.after-write")
        self.session = next
    }

    /// The keys of a new passphrase, derived with `requested` but never less Argon2id than the
    /// vault asked (issue 41): a device takes a newer wrapping by its tag alone, so this is where
    /// the parameters are kept from going down.
    func newPassphraseKeys(_ passphrase: SecureBuffer, kdf requested: KDFParameters,
                           session: UnlockedSession) throws -> (PassphraseKeys, KDFParameters) {
        guard passphrase.count > 0 else { throw CoreError.emptyPassphrase }
        try requested.checkStrength()
        var kdf = requested
        kdf.memory = max(kdf.memory, session.kdf.memory)
        kdf.iterations = max(kdf.iterations, session.kdf.iterations)
        return (try PassphraseKeys(passphrase: passphrase, parameters: kdf), kdf)
    }

    /// Saves the key ring as a local keystore change, keeping the passphrase wrapping the keystore
    /// has now: it may be newer than this session's, if the passphrase changed on another device.
    func saveKeystore(_ session: UnlockedSession, revisionTime: Timestamp, in db: Database) throws {
        try takeWaitingKeystore(session, revisionTime: revisionTime, in: db)
        let record: KeystoreRecord
        let lineage = Lineage.following(try VaultDatabase.stableKeystore(in: db)?.encrypted, now: revisionTime)
        if let current = try VaultDatabase.currentKeystore(in: db), !current.isDeleted {
            // Another process (a second `coffer add`, the screen) may have added keys since this
            // session unlocked: keep them, or their items could never be opened again.
            if case .sameVaultKey = try absorbForWriting(current, into: session) {
                record = try KeystoreSealing.reseal(session.ring, vaultKey: session.vaultKey, keepingWrappingOf: current,
                                                    lineage: lineage, lastModified: 0)
            } else {
                // It wrapped another generation's vault key (§17): wrapped anew around this one's.
                record = try KeystoreSealing.seal(session.ring, vaultKey: session.vaultKey, keys: session.keys,
                                                  kdf: session.kdf, lineage: lineage, lastModified: 0)
            }
        } else {
            record = try KeystoreSealing.seal(session.ring, vaultKey: session.vaultKey, keys: session.keys,
                                              kdf: session.kdf, lineage: lineage, lastModified: 0)
        }
        try VaultDatabase.recordLocalChange(record, in: db)
    }
}

/// What saving an edit did.
public struct SavedEdit: Sendable, Equatable {
    /// The item as stored now.
    public var item: Item
    /// The item had changed since the edit's base: the edit was merged into the newer version.
    public var mergedWithNewer: Bool
    /// Fields both changed: this edit's value kept, the other in history, the item marked ⚑.
    public var conflicts: [String]

    public init(item: Item, mergedWithNewer: Bool, conflicts: [String]) {
        self.item = item
        self.mergedWithNewer = mergedWithNewer
        self.conflicts = conflicts
    }
}

/// The keys of an unlocked vault.
struct UnlockedSession: Sendable {
    let keys: PassphraseKeys
    let ring: KeyRing
    let vaultKey: SecureBuffer
    let kdf: KDFParameters
    /// What this device's key, its record and its messages are sealed under: the vault's first
    /// vault key, which new keys at a device's removal leave in place (`KeyRing.deviceRoot`).
    var deviceRoot: SecureBuffer { ring.deviceRoot ?? vaultKey }
    /// The digest of the sealed ring (a keystore's `encrypted`) last taken into `ring`:
    /// `refreshKeys` opens the stored keystore only when it is another one (its ring is 9 MB of
    /// JSON at 100,000 items; a copy kept here was 9 MB of an agent's memory).
    var ringSource: RingSource?
    /// In a shared vault, the member whose signature every item version written here carries
    /// (`ItemSignature`); nil in a personal vault.
    var signer: ItemSigner?

    /// `item` sealed with this session's ring and, in a shared vault, signed: every item version
    /// this device writes goes through here or `ItemSealing.seal` with the same signer.
    func seal(_ item: Item, lineage: Lineage, lastModified: Int64 = 0) throws -> ItemRecord {
        try ItemSealing.seal(item, ring: ring, lineage: lineage, lastModified: lastModified, signer: signer)
    }

    /// The removal of `id` made from the version `base`, sealed and signed the same way
    /// (`RemovalSealing`); nil without the item's key.
    func sealRemoval(of id: String, base: String?, now: Timestamp) throws -> ItemRecord? {
        try RemovalSealing.seal(id, ring: ring, base: base, now: now, signer: signer)
    }
}

/// What `UnlockedSession.ringSource` keeps of a sealed ring: its SHA-256.
struct RingSource: Equatable {
    private let digest: Data

    init(_ encrypted: String) {
        digest = Data(SHA256.hash(data: Data(encrypted.utf8)))
    }
}

/// An item in a listing, with the badges the list shows.
public struct ListedItem: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case ready(Item)
        /// Another device pushed the item before the keystore holding its key.
        case waitingForKey
        /// The record failed authentication; the message says so.
        case corrupt(String)
    }

    public var id: String
    public var state: State
    public var hasLocalChange: Bool
    public var hasConflict: Bool
    public var needsReview: Bool

    public init(id: String, state: State, hasLocalChange: Bool, hasConflict: Bool, needsReview: Bool) {
        self.id = id
        self.state = state
        self.hasLocalChange = hasLocalChange
        self.hasConflict = hasConflict
        self.needsReview = needsReview
    }

    public var item: Item? {
        if case .ready(let item) = state { return item }
        return nil
    }
}
