import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GRDB
import GRDBSQLite

/// The vault's `-wal` file kept between processes, and the one kind of commit that does not wait for
/// the disk (architecture §3).
///
/// SQLite's last connection to close checkpoints the WAL into the vault file, then deletes it; GRDB
/// opens a pool on a vault without a WAL with a write of its own (a table created and dropped, to
/// make the file). So every process — even one that only reads, like the locked screen — re-created
/// the WAL, waited twice for the disk (the WAL's header, then its directory), and checkpointed that
/// write again at exit (twice more). Kept (`SQLITE_FCNTL_PERSIST_WAL`, GRDB's advice for processes
/// sharing a database), the WAL is still checkpointed when the last connection closes — the vault
/// file alone holds every commit once no process has it open, a copy of it is whole — but the file
/// stays, and the next process opens it as it is.
extension VaultDatabase {
    /// A kept WAL past this size is emptied when the vault closes (`deinit`). Its frames stay valid
    /// after the checkpoint at close, and the next process's first connection rebuilds the WAL
    /// index from them as if none had been copied: it reads them all at open and copies them all
    /// into the vault file again when it closes. Each process's commits add to them (an idle sync
    /// adds about 5 pages) until SQLite restarts the WAL, which it does only after a checkpoint
    /// *within* a process. Kept small, that re-copy is a few pages; emptied, the next open pays
    /// GRDB's start-up write once (about one idle sync in twelve).
    static let keptWALLimit = 256 << 10

    /// Asks SQLite to keep `-wal` and `-shm` when this connection is the last to close. Only
    /// writable connections: a read-only one never checkpoints nor deletes the WAL.
    static func keepWALOnClose(_ db: Database) throws {
        var keep: CInt = 1
        let code = sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &keep)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
    }

    /// Removes `-wal` and `-shm` at `path` when no vault file is there (it was deleted or moved
    /// away): they are that vault's, and SQLite would take them for those of a new file at `path`.
    static func removeOrphanedWAL(of path: String) {
        guard access(path, F_OK) != 0, errno == ENOENT else { return }
        for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
    }

    /// The size of the vault's `-wal` file (`stat`, which opens nothing), or nil without one.
    static func walSize(of path: String) -> Int? {
        var info = stat()
        guard stat(path + "-wal", &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// Empties a WAL grown past `keptWALLimit`, if no other process reads meanwhile (busy: left as
    /// it is, without waiting; the next close tries again).
    func truncateLargeWAL() {
        guard let size = Self.walSize(of: path), size > Self.keptWALLimit else { return }
        _ = try? writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = 10000") }
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// `write` for bookkeeping that a power cut may lose without harm — a sync's time, outcome,
    /// Backoff deadline and clock offset — committed with `synchronous = OFF`, so it does not wait
    /// for the disk. The next synced commit, or the checkpoint when the vault closes, makes it
    /// durable together with everything before it; a crash before that loses only this.
    ///
    /// Never for items, keys, pending changes or markers: those are acknowledged writes (§8).
    package func writeBookkeeping<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try Self.retryingWhileBusy {
                try writer.writeWithoutTransaction { db in
                    let level = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? 2
                    try db.execute(sql: "PRAGMA synchronous = OFF")
                    let outcome = Result<T, Error> {
                        var value: T?
                        try db.inTransaction(.immediate) {
                            value = try body(db)
                            return .commit
                        }
                        guard let value else { throw DatabaseError(message: "the bookkeeping transaction returned nothing") }
                        return value
                    }
                    // Back to the vault's level before anything else commits on this connection.
                    try db.execute(sql: "PRAGMA synchronous = \(level)")
                    return try outcome.get()
                }
            }
        } catch let error as CoreError {
            throw error
        } catch let error as DatabaseError {
            throw translate(error)
        }
    }
}
