import Foundation
import GRDB
import XCTest
@testable import CofferCore
import CofferTestSupport

/// The vault file itself: creation, permissions, refusing what is not a vault, migrations.
final class VaultDatabaseTests: XCTestCase {
    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue & 0o777
    }

    private func tableNames(_ path: String) throws -> [String] {
        var readOnly = Configuration()
        readOnly.readonly = true
        return try DatabaseQueue(path: path, configuration: readOnly).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
    }

    func testCreateMakesA0600FileInA0700Directory() throws {
        let root = try makeTemporaryDirectory()
        let path = root.appendingPathComponent("nested/deeper/vault.db").path
        let database = try VaultDatabase.create(at: path)
        try database.setMeta(.deviceName, "laptop")
        XCTAssertEqual(try mode(path), 0o600)
        XCTAssertEqual(try mode(root.appendingPathComponent("nested/deeper").path), 0o700)
        XCTAssertEqual(try mode(root.appendingPathComponent("nested").path), 0o700)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            XCTAssertEqual(try mode(path + suffix), 0o600, suffix)
        }
        XCTAssertEqual(try database.meta(.format), "coffer-vault")
        XCTAssertEqual(try database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }, "wal")
        XCTAssertEqual(try database.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }, 2, "FULL")
        // The connection that commits: GRDB's WAL set-up (after our prepareDatabase) sets NORMAL,
        // under which a commit acknowledged before a power failure can be lost.
        XCTAssertEqual(try database.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }, 2, "FULL")
        let reopened = try VaultDatabase.open(at: path)
        XCTAssertEqual(try reopened.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }, 2, "FULL")
    }

    func testCreateRefusesAnExistingFile() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        _ = try VaultDatabase.create(at: path)
        XCTAssertEqual(thrownError { try VaultDatabase.create(at: path) } as? CoreError, .vaultExists(path: path))

        let other = try makeTemporaryDirectory().appendingPathComponent("notes.txt").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: other))
        XCTAssertEqual(thrownError { try VaultDatabase.create(at: other) } as? CoreError, .vaultExists(path: other))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: other)), Data("keep me".utf8))
    }

    func testCreateUnderARegularFileFails() throws {
        let directory = try makeTemporaryDirectory()
        let file = directory.appendingPathComponent("file.txt")
        try Data("x".utf8).write(to: file)
        let path = file.appendingPathComponent("vault.db").path
        guard case .cannotCreate(let reported, _)? = thrownError({ try VaultDatabase.create(at: path) }) as? CoreError else {
            return XCTFail("expected cannotCreate")
        }
        XCTAssertEqual(reported, path)
    }

    func testReopenKeepsData() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        try VaultDatabase.create(at: path).setMeta(.deviceName, "laptop")
        XCTAssertEqual(try VaultDatabase.open(at: path).meta(.deviceName), "laptop")
    }

    func testOpenOfAMissingFile() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("absent.db").path
        XCTAssertEqual(thrownError { try VaultDatabase.open(at: path) } as? CoreError, .vaultNotFound(path: path))
    }

    func testOpenOfRandomBytesIsNotAVault() throws {
        let directory = try makeTemporaryDirectory()
        var random = SeededGenerator(seed: 3)
        let inputs: [(String, Data)] = [
            ("random", Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) })),
            ("empty", Data()),
            ("text", Data("just some notes\n".utf8)),
            // SQLite itself calls this not a database: its header's page size is garbage.
            ("sqlite header then garbage", Data("SQLite format 3\0".utf8) + Data((0..<4080).map { _ in UInt8.random(in: 0...255, using: &random) })),
        ]
        for (name, bytes) in inputs {
            let path = directory.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            guard case .notAVault(let reported, _)? = thrownError({ try VaultDatabase.open(at: path) }) as? CoreError else {
                XCTFail("\(name): expected notAVault")
                continue
            }
            XCTAssertEqual(reported, path)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes, "\(name) was changed")
        }
    }

    /// A SQLite header followed by what SQLite cannot read is a damaged database, not another
    /// program's file: the sentence says so and what to do, and the file stays as it was.
    func testOpenOfATruncatedVaultSaysItIsDamaged() throws {
        let directory = try makeTemporaryDirectory()
        let path = directory.appendingPathComponent("vault.db").path
        let database = try VaultDatabase.create(at: path)
        try database.write { db in
            for index in 0..<300 {
                try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?)",
                               arguments: ["filler-\(index)", String(repeating: "x", count: 500)])
            }
        }
        try database.checkpoint()
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let inputs: [(String, Data)] = [
            ("half", whole.prefix(whole.count / 2)),
            ("one page short", whole.prefix(whole.count - 4096)),
        ]
        for (name, bytes) in inputs {
            let damaged = directory.appendingPathComponent("\(name).db").path
            try bytes.write(to: URL(fileURLWithPath: damaged))
            let error = thrownError { try VaultDatabase.open(at: damaged) } as? CoreError
            guard case .damagedVault(let reported, _)? = error else {
                XCTFail("\(name): expected damagedVault, got \(String(describing: error))")
                continue
            }
            XCTAssertEqual(reported, damaged)
            XCTAssertTrue(error?.description.contains("restore a backup copy") == true, "\(name): \(error!.description)")
            XCTAssertTrue(error?.description.contains("coffer join") == true)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: damaged)), bytes, "\(name) was changed")
        }
    }

    func testOpenOrCreateOfADirectoryIsOneSentence() throws {
        let directory = try makeTemporaryDirectory()
        XCTAssertEqual(thrownError { try VaultDatabase.open(at: directory.path) } as? CoreError,
                       .notAVault(path: directory.path, reason: "it is a directory"))
        XCTAssertEqual(thrownError { try VaultDatabase.create(at: directory.path) } as? CoreError,
                       .cannotCreate(path: directory.path, reason: "a directory has that name"))
    }

    func testOpenOfAPlainSQLiteDatabaseIsNotAVaultAndLeavesItAlone() throws {
        let directory = try makeTemporaryDirectory()
        let plain = directory.appendingPathComponent("plain.db").path
        try DatabaseQueue(path: plain).write { db in
            try db.execute(sql: "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')")
        }
        guard case .notAVault? = thrownError({ try VaultDatabase.open(at: plain) }) as? CoreError else {
            return XCTFail("expected notAVault")
        }
        XCTAssertEqual(try tableNames(plain), ["contacts"], "no vault tables were added")
        XCTAssertEqual(try DatabaseQueue(path: plain).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") },
                       "delete", "the file was not switched to WAL")

        // A database with a meta table but another format is refused too.
        let lookalike = directory.appendingPathComponent("lookalike.db").path
        try DatabaseQueue(path: lookalike).write { db in
            try db.execute(sql: "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('format', 'other')")
        }
        guard case .notAVault? = thrownError({ try VaultDatabase.open(at: lookalike) }) as? CoreError else {
            return XCTFail("expected notAVault")
        }
    }

    /// The SQL of migration "v1-tables" in VaultSchema.swift, copied so the test keeps the old schema
    /// even when the current one changes.
    private static let v1Tables = """
        CREATE TABLE items (
            id TEXT PRIMARY KEY NOT NULL,
            last_modified INTEGER NOT NULL,
            active INTEGER NOT NULL,
            origins TEXT NOT NULL,
            tags TEXT NOT NULL,
            encrypted TEXT NOT NULL
        );
        CREATE TABLE keystores (
            id TEXT PRIMARY KEY NOT NULL,
            last_modified INTEGER NOT NULL,
            record TEXT NOT NULL
        );
        CREATE TABLE pending (
            key INTEGER PRIMARY KEY AUTOINCREMENT,
            collection TEXT NOT NULL CHECK (collection IN ('items', 'keystores')),
            id TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('local', 'remote')),
            action TEXT NOT NULL CHECK (action IN ('add', 'update', 'remove')),
            last_modified INTEGER NOT NULL,
            record TEXT NOT NULL,
            UNIQUE (source, collection, id)
        );
        CREATE INDEX pending_by_target ON pending (collection, id);
        CREATE TABLE markers (
            collection TEXT PRIMARY KEY NOT NULL,
            etag TEXT NOT NULL
        );
        CREATE TABLE meta (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        );
        """

    func testOpenMigratesAVersionOneVault() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("old.db").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: Self.v1Tables)
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v1-tables')")
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('format', 'coffer-vault'), ('device_name', 'old laptop')")
            try db.execute(sql: """
                INSERT INTO items (id, last_modified, active, origins, tags, encrypted)
                VALUES ('old-item', 1234, 1, 'h1 h2', '', 'AQID')
                """)
            try db.execute(sql: "INSERT INTO markers (collection, etag) VALUES ('items', '\"1234\"')")
        }
        XCTAssertFalse(try tableNames(path).contains("reviews"))

        let database = try VaultDatabase.open(at: path)
        XCTAssertTrue(try database.read { db in try db.tableExists("reviews") })
        XCTAssertEqual(try database.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") },
                       ["v1-tables", "v2-reviews", "v3-pending-by-action", "v5-devices", "v6-search-index", "v7-attachments", "v8-mirror",
                        "v9-item-signatures"])
        // A stable item from before signatures reads back unsigned.
        let old = try database.read { db in try VaultDatabase.stableItem("old-item", in: db) }
        XCTAssertEqual(old?.encrypted, "AQID")
        XCTAssertNil(old?.signature)
        XCTAssertTrue(try database.read { db in try db.tableExists("handled") && db.tableExists("outbox") && db.tableExists("mirror") })
        XCTAssertTrue(try database.read { db in try db.tableExists("attachments") && db.tableExists("attachment_chunks") })
        XCTAssertTrue(try database.read { db in try db.indexes(on: "pending").contains { $0.name == "pending_by_action" } })
        let survivor = try database.read { db in try VaultDatabase.stableItem("old-item", in: db) }
        XCTAssertEqual(survivor, ItemRecord(id: "old-item", isActive: true, originHashes: ["h1", "h2"], tagHashes: [],
                                            encrypted: "AQID", lastModified: 1234))
        XCTAssertEqual(try database.meta(.deviceName), "old laptop")
        XCTAssertEqual(try database.read { db in try String.fetchOne(db, sql: "SELECT etag FROM markers") }, "\"1234\"")
        XCTAssertEqual(try database.status().unreviewed, 0)
    }

    func testMetaSetAndClear() throws {
        let database = try VaultDatabase.create(at: try makeTemporaryDirectory().appendingPathComponent("v.db").path)
        XCTAssertNil(try database.meta(.lastSync))
        try database.setMeta(.lastSync, "a")
        try database.setMeta(.lastSync, "b")
        XCTAssertEqual(try database.meta(.lastSync), "b")
        try database.setMeta(.lastSync, nil)
        XCTAssertNil(try database.meta(.lastSync))
    }

    func testStorageErrorsAreCoreErrors() throws {
        let database = try VaultDatabase.create(at: try makeTemporaryDirectory().appendingPathComponent("v.db").path)
        guard case .storage? = thrownError({ try database.read { db in try db.execute(sql: "SELECT * FROM nowhere") } }) as? CoreError
        else { return XCTFail("expected storage") }
    }
}

/// The mount-table lookup behind the network-filesystem refusal.
final class FilesystemCheckTests: XCTestCase {
    static let mountInfo = """
        22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
        30 22 0:40 / /home/ann/nas rw,relatime shared:9 - nfs4 nas:/export rw,vers=4.2
        31 22 0:41 / /home/ann/My\\040Share rw,relatime - cifs //server/share rw
        32 30 0:42 / /home/ann/nas/local rw - tmpfs tmpfs rw
        """

    func testTheLongestMountPointNamesTheFilesystem() {
        let type = { FilesystemCheck.filesystemType(of: $0, mountInfo: Self.mountInfo) }
        XCTAssertEqual(type("/home/ann/.local/share/coffer"), "ext4")
        XCTAssertEqual(type("/home/ann/nas"), "nfs4")
        XCTAssertEqual(type("/home/ann/nas/vaults"), "nfs4")
        XCTAssertEqual(type("/home/ann/nas/local/x"), "tmpfs")
        XCTAssertEqual(type("/home/ann/nasty"), "ext4", "a mount point is a whole path component")
        XCTAssertEqual(type("/home/ann/My Share/v"), "cifs")
        XCTAssertTrue(FilesystemCheck.networkTypes.isSuperset(of: ["nfs4", "cifs"]))
    }

    func testAVaultHereIsAllowedAndTheOverrideIsHonoured() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        XCTAssertNoThrow(try FilesystemCheck.requireLocking(forVaultAt: path))
        XCTAssertEqual(CoreError.unsafeFilesystem(path: "/n/v.db", kind: "nfs4").description.contains("COFFER_ALLOW_NETWORK_FS=1"), true)
    }
}
