import Foundation
import GRDB

/// What `coffer status` and the locked screen show; readable without the passphrase.
public struct VaultStatus: Sendable, Equatable, Codable {
    public var items: Int
    /// Local changes not yet on the server.
    public var pending: Int
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
    /// The last lock another device asked for (DESIGN §9), whichever process handled it: a screen
    /// unlocked before it locks.
    public var remoteLock: DeviceLockNotice?
}

extension VaultDatabase {
    public func status() throws -> VaultStatus {
        try read { db in
            // Stable items, minus those a local change replaces, plus local changes that are not
            // removals. Each count reads an index only (items' id, pending_by_action), never the
            // records: the locked screen shows this before anything else.
            let items = try Int.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM items)
                     - (SELECT COUNT(*) FROM pending AS p WHERE p.source = 'local' AND p.collection = 'items'
                          AND EXISTS (SELECT 1 FROM items AS i WHERE i.id = p.id))
                     + (SELECT COUNT(*) FROM pending WHERE source = 'local' AND collection = 'items' AND action != 'remove')
                """) ?? 0
            let pending = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pending WHERE source = 'local'") ?? 0
            let conflicts = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM pending AS l JOIN pending AS r
                  ON l.collection = r.collection AND l.id = r.id AND l.source = 'local' AND r.source = 'remote'
                """) ?? 0
            let unreviewed = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reviews") ?? 0
            func meta(_ key: MetaKey) throws -> String? {
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key.rawValue])
            }
            let skew = try meta(.clockSkew).flatMap(ClockSkew.init(stored:))
            return VaultStatus(items: items, pending: pending, conflicts: conflicts, unreviewed: unreviewed,
                               lastSync: try meta(.lastSync), lastError: try meta(.lastError),
                               lastErrorMessage: try meta(.lastErrorMessage), backoffUntil: try meta(.backoffUntil),
                               account: try meta(.accountUser), server: try meta(.accountServer),
                               clockSkewMs: skew?.offsetMilliseconds, clockWarning: skew?.warning,
                               remoteLock: try meta(.remoteLock).flatMap { try? JSONDecoder().decode(DeviceLockNotice.self, from: Data($0.utf8)) })
        }
    }
}
