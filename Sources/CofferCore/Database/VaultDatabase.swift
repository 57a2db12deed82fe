import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GRDB

/// The vault's SQLite file: stable records, pending changes, markers and settings (architecture §3).
///
/// Knows nothing of keys: everything it stores is ciphertext or non-secret metadata. Every method
/// that changes several rows does so in one transaction.
public final class VaultDatabase: Sendable {
    public let path: String
    let writer: DatabasePool

    private init(path: String, writer: DatabasePool) {
        self.path = path
        self.writer = writer
    }

    deinit {
        // Before the pool closes: the checkpoint that follows leaves a small WAL behind (+WAL).
        truncateLargeWAL()
    }

    /// Creates a new vault file (0600, in a 0700 directory) and fills it with `initialize` in one
    /// transaction. Fails if one exists.
    ///
    /// The file is built under a temporary name and linked into place only when complete, so a
    /// crash never leaves a half-made vault at `path` (which `init` would then refuse to replace).
    /// What such a crash leaves under the temporary name goes at the next `create` or `open`.
    package static func create(at path: String, initialize: (Database) throws -> Void = { _ in }) throws -> VaultDatabase {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw CoreError.cannotCreate(path: path, reason: "a directory has that name") }
            throw CoreError.vaultExists(path: path)
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !fileManager.fileExists(atPath: directory) {
            do {
                try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
            } catch {
                throw CoreError.cannotCreate(path: path, reason: "its directory cannot be created")
            }
        }
        try FilesystemCheck.requireLocking(forVaultAt: path)
        removeCreationLeftovers(of: path)
        let (temporary, lock) = try claimCreation(for: path)
        // Closed only once every file of this creation is gone: see VaultDatabase+Leftovers.swift.
        var lockDescriptor: Int32? = lock
        func releaseLock() {
            if let descriptor = lockDescriptor { Glibc.close(descriptor) }
            lockDescriptor = nil
        }
        defer { releaseLock() }
        func removeTemporary() { removeCreation(temporary) }
        do {
            // Nothing here is the vault before link(2): the schema's transactions and the first
            // write go without a sync each (ten of them were a third of a `join`'s set-up), and
            // the file is made durable once, through the lock's descriptor, before the link.
            let pool = try openPool(temporary, syncEachCommit: false)
            try pool.write { db in
                try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('format', ?)", arguments: [VaultSchema.formatName])
                try initialize(db)
            }
            CrashPoint.reach("vault.create.before-link")
            try pool.close()
            guard fsync(lock) == 0 else {
                throw CoreError.cannotCreate(path: path, reason: String(cString: strerror(errno)))
            }
        } catch let error as CoreError {
            removeTemporary()
            throw error
        } catch {
            removeTemporary()
            throw CoreError.cannotCreate(path: path, reason: "\(error)")
        }
        // A vault deleted or moved away leaves its kept -wal and -shm (+WAL): SQLite would replay
        // that WAL onto this new file.
        removeOrphanedWAL(of: path)
        // link(2) fails if `path` appeared meanwhile: never replace someone else's vault.
        guard link(temporary, path) == 0 else {
            let exists = errno == EEXIST
            removeTemporary()
            if exists { throw CoreError.vaultExists(path: path) }
            throw CoreError.cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
        removeTemporary()
        // After link(2) the lock's file *is* the vault. Closing a descriptor of a file drops every
        // POSIX lock this process holds on it, SQLite's included: closed after the pool opened, it
        // let another process delete the WAL under us. So it goes before SQLite opens the vault.
        releaseLock()
        do {
            return VaultDatabase(path: path, writer: try openPool(path))
        } catch {
            throw CoreError.storage(reason: "\(error)")
        }
    }

    /// Opens an existing vault; `vaultNotFound`, `notAVault` or `damagedVault` otherwise. Removes
    /// what crashed creations of a vault at `path` left behind.
    ///
    /// Only SQLite opens the file: a descriptor of our own (to read the header, say), closed while
    /// another connection of this process is open on the vault, would drop that connection's locks.
    public static func open(at path: String) throws -> VaultDatabase {
        // stat(2) and access(2), which open nothing, rather than FileManager: its attribute
        // dictionary costs the runtime's first generic lookups on every start (~0.2 ms).
        var info = stat()
        guard stat(path, &info) == 0 else { throw CoreError.vaultNotFound(path: path) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw CoreError.notAVault(path: path, reason: "it is a directory") }
        guard access(path, R_OK) == 0 else {
            throw CoreError.notAVault(path: path, reason: "the file is not readable")
        }
        if info.st_size == 0 {
            throw CoreError.notAVault(path: path, reason: "the file is empty")
        }
        try FilesystemCheck.requireLocking(forVaultAt: path)
        removeCreationLeftovers(of: path)
        // Look for the format marker read-only first: another program's SQLite file must not be
        // changed (switched to WAL, given the vault's tables) just because it was named as a vault.
        let format: String?
        let isMigrated: Bool
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            readOnly.busyMode = .timeout(10)
            (format, isMigrated) = try retryingWhileBusy {
                try DatabaseQueue(path: path, configuration: readOnly).read { db in
                    // sqlite_master itself: GRDB's tableExists loads the whole schema first.
                    let tables = try Set(String.fetchAll(db, sql: """
                        SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'grdb_migrations')
                        """))
                    let format = tables.contains("meta") ? try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'") : nil
                    let applied = tables.contains("grdb_migrations")
                        ? try Set(String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
                    return (format, applied == Set(VaultSchema.migrator.migrations))
                }
            }
        } catch let error as DatabaseError {
            throw openingError(error, path: path)
        } catch {
            throw CoreError.notAVault(path: path, reason: "it cannot be opened as a vault: \(error.localizedDescription)")
        }
        guard format == VaultSchema.formatName else {
            throw CoreError.notAVault(path: path, reason: "it has no Coffer format marker")
        }
        do {
            // Up to date (every start but the first after an upgrade): no migrator, whose barrier
            // and schema reading were a millisecond of every command.
            return VaultDatabase(path: path, writer: try retryingWhileBusy { try openPool(path, migrating: !isMigrated) })
        } catch let error as DatabaseError {
            throw openingError(error, path: path)
        } catch {
            throw CoreError.notAVault(path: path, reason: "it cannot be opened as a vault: \(error.localizedDescription)")
        }
    }

    /// What an SQLite error while opening means to the user: another program's file, a damaged
    /// vault, or a vault kept busy.
    private static func openingError(_ error: DatabaseError, path: String) -> CoreError {
        if isDiskFull(error, path: path) { return .storage(reason: diskFull) }
        switch error.resultCode {
        case .SQLITE_NOTADB: return .notAVault(path: path, reason: "it is not a SQLite database")
        case .SQLITE_CORRUPT: return .damagedVault(path: path, reason: "SQLite reports the file malformed")
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
            return .notAVault(path: path, reason: "it cannot be opened: \(describe(error, path: path))")
        default: return .storage(reason: describe(error, path: path))
        }
    }

    /// Retries `body` while SQLite answers SQLITE_BUSY, for up to 10 s. Opening a WAL database gets
    /// SQLITE_BUSY at once, without the busy handler, while another process's last connection
    /// cleans up the WAL as it closes, or recovers it (sqlite.org/wal.html, "Sometimes Queries
    /// Return SQLITE_BUSY In WAL Mode"): two `coffer` commands started together hit it.
    static func retryingWhileBusy<T>(_ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(10)
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                usleep(10_000)
            }
        }
    }

    /// - Parameters:
    ///   - syncEachCommit: false only while a new vault is built under its temporary name (`create`).
    ///   - migrating: false when the caller saw every migration applied.
    private static func openPool(_ path: String, syncEachCommit: Bool = true, migrating: Bool = true) throws -> DatabasePool {
        // WAL with NORMAL can lose a committed transaction on power failure (architecture §3).
        let synchronous = syncEachCommit ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = OFF"
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: synchronous)
            try db.execute(sql: "PRAGMA secure_delete = ON")
            // A vault's WAL is kept between processes (VaultDatabase+WAL.swift); a creation's goes
            // with its temporary name.
            if syncEachCommit, !db.configuration.readonly { try keepWALOnClose(db) }
        }
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // Again on the writer, the connection that commits: GRDB's WAL set-up, which runs after
        // prepareDatabase, sets it to NORMAL (every commit went unsynced until then).
        try pool.writeWithoutTransaction { db in try db.execute(sql: synchronous) }
        if migrating { try VaultSchema.migrator.migrate(pool) }
        return pool
    }

    // MARK: - Meta

    public func meta(_ key: MetaKey) throws -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key.rawValue]) }
    }

    public func setMeta(_ key: MetaKey, _ value: String?) throws {
        try write { db in try Self.setMeta(key, value, in: db) }
    }

    package static func setMeta(_ key: MetaKey, _ value: String?, in db: Database) throws {
        if let value {
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key.rawValue, value])
        } else {
            try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key.rawValue])
        }
    }

    // MARK: - Transactions

    /// Runs `body` in one write transaction (IMMEDIATE: what it reads stays current until it
    /// commits); storage errors become `CoreError`s. A vault another process keeps busy is retried
    /// for up to 10 s, then reported as busy.
    package func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try Self.retryingWhileBusy { try writer.write(body) }
        } catch let error as CoreError {
            throw error
        } catch let error as DatabaseError {
            throw translate(error)
        }
    }

    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try Self.retryingWhileBusy { try writer.read(body) }
        } catch let error as CoreError {
            throw error
        } catch let error as DatabaseError {
            throw translate(error)
        }
    }

    /// How many times other processes committed to the vault since this connection opened, as a
    /// token that changes with each such commit (SQLite's `PRAGMA data_version` on the writer
    /// connection: this process's own commits do not change it).
    public func externalChangeToken() throws -> Int {
        try Self.retryingWhileBusy {
            try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
        }
    }

    func translate(_ error: DatabaseError) -> CoreError {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .damagedVault(path: path, reason: "SQLite reports the file malformed")
        default: return .storage(reason: Self.describe(error, path: path))
        }
    }

    private static let diskFull = "the disk is full; free some space and try again"

    /// SQLite reports a full disk as SQLITE_FULL only when a write to the database or WAL runs out;
    /// growing the `-shm` index (which every connection does when it opens) gives SQLITE_IOERR
    /// with no errno in GRDB's error. So an I/O error while the vault's filesystem has almost no
    /// room left is also told as a full disk, the one thing the user can do something about.
    private static func isDiskFull(_ error: DatabaseError, path: String) -> Bool {
        switch error.resultCode {
        case .SQLITE_FULL: return true
        case .SQLITE_IOERR, .SQLITE_CANTOPEN:
            return FilesystemCheck.freeBytes(forVaultAt: path).map { $0 < FilesystemCheck.nearlyFullBytes } ?? false
        default: return false
        }
    }

    private static func describe(_ error: DatabaseError, path: String) -> String {
        if isDiskFull(error, path: path) { return diskFull }
        switch error.resultCode {
        case .SQLITE_READONLY: return "the file is read-only"
        case .SQLITE_IOERR: return "an input/output error (\(error.message ?? "no detail"))"
        default: return error.message ?? "SQLite error \(error.resultCode.rawValue)"
        }
    }

    /// Flushes the WAL into the main file (used by tests that inspect the file on disk).
    public func checkpoint() throws {
        _ = try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}

/// Settings kept in the `meta` table (non-secret: the file is 0600 and sync must run while locked).
public enum MetaKey: String, Sendable, CaseIterable {
    case format
    case vaultID = "vault_id"
    case deviceID = "device_id"
    case deviceName = "device_name"
    case created
    case accountServer = "account_server"
    case accountUser = "account_user"
    case accountPassword = "account_password"
    /// The id of the account's own bucket (the server's `user.bucket`), learned after the first
    /// sync: later syncs name it instead of `default`, which costs the server half as much a
    /// request (architecture §4). Absent until learned, and after a change of account.
    case accountBucket = "account_bucket"
    case lastSync = "last_sync"
    case lastError = "last_error"
    case lastErrorMessage = "last_error_message"
    case backoffUntil = "backoff_until"
    case clockSkew = "clock_skew"
    case keystoreWaitingForPassphrase = "keystore_waiting_for_passphrase"
    case autoLockSeconds = "auto_lock_seconds"
    case clipboardSeconds = "clipboard_seconds"
    /// A rendezvous this device opened for an invitation and has not removed yet (`server user password`).
    case pendingInvitation = "pending_invitation"
    /// This device's X25519 private key, sealed under the vault key (DeviceSealing).
    case deviceKey = "device_key"
    /// When this device last wrote its record to the server (ms), nil after a rename.
    case deviceRegistered = "device_registered"
    /// The last remote lock handled here, as `DeviceLockNotice` JSON.
    case remoteLock = "remote_lock"
    /// A new account password received from another device (`device rm --rotate`), adopted when
    /// the current one is refused.
    case accountNextPassword = "account_next_password"
    /// A rotation this device started: the new password and the ids of the messages carrying it.
    case pendingRotation = "pending_rotation"
    /// The ids of the devices this device removed with `device rm --rotate`, as a JSON array: a
    /// record of theirs the server lists again (a replayed registry) is ignored here for good.
    case removedDevices = "removed_devices"
    /// Set when an unlock put a shared vault's kept keystore back over the server's
    /// (`Vault.restoreMirroredKeystore`): the next sync counts it as refused (`FORGED`).
    case keystoreRefusedAtUnlock = "keystore_refused_at_unlock"
    /// Set when items arrived that may name files: the next sync lists the attachment chunks
    /// (an idle sync does not ask for them).
    case attachmentsToFetch = "attachments_to_fetch"
    /// When this device's unlocked sync last looked for items kept in the trash past their time
    /// (ISO-8601; issue 43): it looks once a day (`TrashRules.isCheckDue`), as it opens every item.
    case trashCheckedAt = "trash_checked_at"
    /// The account of this vault's recovery kit (`user password`): `recovery-kit --rotate` voids
    /// it. It opens only the kit's sealed record, whose key is the code's alone.
    case recoveryAccount = "recovery_account"
    /// A shared vault's bucket (`share-ID`, architecture §17); absent in a personal vault.
    case shareVault = "share_vault"
    /// The name the shared vault was created with (`NAME` of `NAME.db`).
    case shareName = "share_name"
    /// The personal vault whose account and passphrase this shared copy uses (its path).
    case sharePersonalVault = "share_personal_vault"
    /// The id of the person this copy belongs to (in the clear: the roster names them anyway).
    case sharePerson = "share_person"
    /// The member's secrets, sealed under their passphrase (`MemberSecrets`, JSON).
    case shareMember = "share_member"
    /// The epoch whose key this copy's member secrets hold (in the clear: the roster says it anyway).
    case shareEpoch = "share_epoch"
    /// A newer epoch's key sealed to this person, fetched while locked: `EPOCH base64`, opened at
    /// the next unlock (`Vault+Sharing.swift`).
    case sharePendingSeal = "share_pending_seal"
    /// The epoch this device began with a removal or a rotation: at the unlock that takes its
    /// key, this device gives the vault a new vault key and item keys (`Vault+Generations.swift`).
    case shareRekey = "share_rekey"
    /// The key ring generation whose retired keys this copy's own changes were last sealed away from
    /// (`Vault.resealUncommittedChanges`, a personal vault after a device's removal).
    case resealedGeneration = "resealed_generation"
    // `share_resealed` and `share_rewrite` (before 2026-12-08: every item sealed again after a
    // revocation) are no longer read; a file that has them keeps them, unused.
    /// The roster collection's ETag when `roster_entries` was stored: the next sync asks for
    /// the changes since.
    case rosterMarker = "roster_marker"
    /// The roster this device verified, each entry base64 on a line of its own.
    case rosterEntries = "roster_entries"
    /// When this device last checked the shared bucket's permissions against the roster (Unix
    /// seconds): the next check is due after a day, or at once when the roster changes.
    case permissionsChecked = "permissions_checked"
}
