/// A current item row as a long-lived index (the agent's) takes it in: its id, the fingerprint of
/// the bytes it is sealed in, and — only when the row was opened — the item or why it cannot be read.
package struct ItemRowScan {
    package let id: String
    package let fingerprint: Int
    /// nil when the caller said it knows this version of the row (it was not opened).
    package let state: ListedItem.State?

    package init(id: String, fingerprint: Int, state: ListedItem.State?) {
        self.id = id
        self.fingerprint = fingerprint
        self.state = state
    }
}

/// What the agent's index needs from the vault: one pass over the rows opening only those it does
/// not know, one row again after its own write, and the few items a request asks for opened on
/// demand. Each decrypted item lives only while `body` (or the caller) holds it.
extension Vault {
    /// Runs `body` on the vault's actor without a suspension: what it reads and writes of a caller's
    /// state (the agent's index) is not interleaved with another such body or any vault call.
    package func isolated<Result: Sendable>(_ body: @Sendable (isolated Vault) throws -> Result) throws -> Result {
        try body(self)
    }

    /// Calls `body` with every current item row, in listing order; a row `isKnown(id, fingerprint)`
    /// claims is not opened (its `state` is nil).
    package func scanItemRows(isKnown: (String, Int) -> Bool, _ body: (ItemRowScan) -> Void) throws {
        let session = try unlockedSession()
        var missing: [(id: String, fingerprint: Int, current: CurrentItemRecord)] = []
        try database.read { db in
            try VaultDatabase.forEachCurrentItemRow(in: db) { row in
                let fingerprint = (try? row.fingerprint()) ?? 0
                if isKnown(row.id, fingerprint) {
                    return body(ItemRowScan(id: row.id, fingerprint: fingerprint, state: nil))
                }
                let state: ListedItem.State
                do {
                    let current = try row.current()
                    do {
                        state = .ready(try ItemSealing.open(current.record, ring: session.ring))
                    } catch CoreError.itemKeyMissing {
                        return missing.append((row.id, fingerprint, current))
                    }
                } catch {
                    state = .corrupt("\(error)")
                }
                body(ItemRowScan(id: row.id, fingerprint: fingerprint, state: state))
            }
        }
        guard !missing.isEmpty else { return }
        // Keys another process saved since this session unlocked open these now (as `listItems`).
        try refreshRing(session)
        for row in missing {
            body(ItemRowScan(id: row.id, fingerprint: row.fingerprint, state: Self.state(opening: row.current, with: session)))
        }
    }

    /// One item's row, opened, as `scanItemRows` would hand it; nil when the item is gone.
    package func scanItemRow(_ id: String) throws -> ItemRowScan? {
        let session = try unlockedSession()
        if !session.ring.contains(id) { try refreshRing(session) }
        return try database.read { db in
            try VaultDatabase.currentItemRow(id, in: db) { row -> ItemRowScan? in
                guard let row else { return nil }
                let fingerprint = (try? row.fingerprint()) ?? 0
                let state: ListedItem.State
                do {
                    state = Self.state(opening: try row.current(), with: session)
                } catch {
                    state = .corrupt("\(error)")
                }
                return ItemRowScan(id: id, fingerprint: fingerprint, state: state)
            }
        }
    }

    /// The items `ids` name, opened now with their badges, in that order; one gone since is left out.
    /// The keystore is not read again for an item whose key is missing (it waits for its key): the
    /// scan that found it did, and every answer selects such items — reading a 9 MB keystore each time.
    package func openListedItems(_ ids: [String]) throws -> [ListedItem] {
        let session = try unlockedSession()
        return try database.read { db in
            let reviewed = try VaultDatabase.reviewedIDs(in: db)
            return try ids.compactMap { id -> ListedItem? in
                let current: CurrentItemRecord
                do {
                    guard let found = try VaultDatabase.currentItem(id, in: db) else { return nil }
                    current = found
                } catch let error as CoreError {
                    return ListedItem(id: id, state: .corrupt("\(error)"), hasLocalChange: true, hasConflict: false,
                                      needsReview: reviewed.contains(id))
                }
                return ListedItem(id: id, state: Self.state(opening: current, with: session),
                                  hasLocalChange: current.hasLocalChange, hasConflict: current.hasConflict,
                                  needsReview: reviewed.contains(id))
            }
        }
    }

    private static func state(opening current: CurrentItemRecord, with session: UnlockedSession) -> ListedItem.State {
        do {
            return .ready(try ItemSealing.open(current.record, ring: session.ring))
        } catch CoreError.itemKeyMissing {
            return .waitingForKey
        } catch {
            return .corrupt("\(error)")
        }
    }
}
