import Foundation
import GRDB

/// What `coffer status` and the locked screen show; readable without the passphrase.
public struct VaultStatus: Sendable, Equatable, Codable {
    public var items: Int
    /// Local item changes not yet on the server: what a person calls pending. The vault's own
    /// records (its keystore, devices, members) are counted apart, in `pendingVaultRecords`: a new
    /// vault's first keystore is one such change, and "1 pending" on an empty vault read as a lost item.
    public var pending: Int
    /// Local changes to the vault's own records (keystore, devices, members) not yet on the server.
    public var pendingVaultRecords: Int = 0
    /// Every local change not yet on the server, items and the vault's own records: what a sync
    /// still has to send.
    public var allPendingChanges: Int { pending + pendingVaultRecords }
    /// Items changed here and on another device, waiting for an unlock to merge.
    public var conflicts: Int
    /// Merged items not yet reviewed (⚑).
    public var unreviewed: Int
    public var lastSync: String?
    public var lastError: String?
    public var lastErrorMessage: String?
    public var backoffUntil: String?
    public var account: String?
    public var server: String?
    /// The device clock's offset from the server's (server − device), as the last sync measured it.
    public var clockSkewMs: Int64?
    /// Set when that offset is past five minutes: "clock 7 min behind the server (corrected)".
    public var clockWarning: String?
    /// This device made (or recovered from) a recovery kit: what `recovery-kit` published is
    /// the server's copy, so local changes not yet sent are not covered by it. nil from a version
    /// that did not say.
    public var hasRecoveryKit: Bool?
    /// The item changes a recovery kit made here cannot bring back: those not on the server yet,
    /// when there is a kit (their keys, counted apart, go with them).
    public var notCoveredByKit: Int { hasRecoveryKit == true ? pending : 0 }
    /// The last lock another device asked for (architecture §9), whichever process handled it: a screen
    /// unlocked before it locks.
    public var remoteLock: DeviceLockNotice?
}

extension VaultDatabase {
    /// The counts and the sync facts, in one read transaction.
    public func status() throws -> VaultStatus {
        try read { db in
            var status = try VaultDatabase.facts(in: db)
            try VaultDatabase.count(into: &status, in: db)
            return status
        }
    }

    /// Items (and the keystore) changed here and on another device, waiting for an unlock.
    public func conflictCount() throws -> Int {
        try read(VaultDatabase.conflictCount)
    }

    /// Counted from the remote side: changes fetched and waiting are few, local ones may be 100,000.
    private static func conflictCount(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM pending AS r WHERE r.source = 'remote' AND EXISTS
              (SELECT 1 FROM pending AS l WHERE l.source = 'local' AND l.collection = r.collection AND l.id = r.id)
            """) ?? 0
    }

    /// The sync facts only, counts left at 0: a handful of rows read by key, so the locked screen
    /// can be drawn before the counts, which take milliseconds per 10,000 pending changes.
    public func statusWithoutCounts() throws -> VaultStatus {
        try read { db in try VaultDatabase.facts(in: db) }
    }

    private static func facts(in db: Database) throws -> VaultStatus {
        func meta(_ key: MetaKey) throws -> String? {
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key.rawValue])
        }
        let skew = try meta(.clockSkew).flatMap(ClockSkew.init(stored:))
        var status = VaultStatus(items: 0, pending: 0, conflicts: 0, unreviewed: 0,
                           lastSync: try meta(.lastSync), lastError: try meta(.lastError),
                           lastErrorMessage: try meta(.lastErrorMessage), backoffUntil: try meta(.backoffUntil),
                           account: try meta(.accountUser), server: try meta(.accountServer),
                           clockSkewMs: skew?.offsetMilliseconds, clockWarning: skew?.warning,
                           remoteLock: try meta(.remoteLock).flatMap { try? JSONDecoder().decode(DeviceLockNotice.self, from: Data($0.utf8)) })
        status.hasRecoveryKit = try meta(.recoveryAccount) != nil
        return status
    }

    /// Items: the stable ones, minus those a local change replaces, plus the local changes that
    /// are not removals. Each count walks an index, never the records, and the overlap of local
    /// changes and stable items is found from the smaller side: a freshly imported vault holds
    /// 100,000 local additions and no stable item, a synced one the reverse.
    private static func count(into status: inout VaultStatus, in db: Database) throws {
        var local = (all: 0, items: 0, itemsKept: 0)
        let rows = try Row.fetchAll(db, sql: """
            SELECT collection, action, COUNT(*) FROM pending WHERE source = 'local' GROUP BY collection, action
            """)
        for row in rows {
            let (collection, action, count): (String, String, Int) = (row[0], row[1], row[2])
            local.all += count
            guard collection == CollectionName.items.rawValue else { continue }
            local.items += count
            if action != PendingChange.Action.remove.rawValue { local.itemsKept += count }
        }
        let stable = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM items") ?? 0
        let replaced = try Int.fetchOne(db, sql: stable <= local.items ? """
            SELECT COUNT(*) FROM items AS i WHERE EXISTS
              (SELECT 1 FROM pending AS p WHERE p.source = 'local' AND p.collection = 'items' AND p.id = i.id)
            """ : """
            SELECT COUNT(*) FROM pending AS p WHERE p.source = 'local' AND p.collection = 'items'
              AND EXISTS (SELECT 1 FROM items AS i WHERE i.id = p.id)
            """) ?? 0
        status.items = stable - replaced + local.itemsKept
        status.pending = local.items
        status.pendingVaultRecords = local.all - local.items
        status.conflicts = try conflictCount(in: db)
        status.unreviewed = try VaultDatabase.reviewCount(in: db)
    }
}
