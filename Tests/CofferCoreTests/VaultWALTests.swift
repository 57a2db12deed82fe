import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// The vault's WAL kept between processes, the vault file whole once closed, and bookkeeping
/// commits that do not wait for the disk (VaultDatabase+WAL.swift).
final class VaultWALTests: XCTestCase {
    private func modificationTime(_ path: String) throws -> timespec {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return info.st_mtim
    }

    private func metaInCopy(of path: String, key: MetaKey, in directory: URL) throws -> String? {
        let copy = directory.appendingPathComponent("copy.db").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        var readOnly = Configuration()
        readOnly.readonly = true
        return try DatabaseQueue(path: copy, configuration: readOnly).read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key.rawValue])
        }
    }

    func testTheWALStaysAfterCloseAndTheVaultFileAloneHoldsEveryCommit() throws {
        let directory = try makeTemporaryDirectory()
        let path = directory.appendingPathComponent("vault.db").path
        var database: VaultDatabase? = try VaultDatabase.create(at: path)
        try database?.setMeta(.deviceName, "laptop")
        database = nil
        XCTAssertNotNil(VaultDatabase.walSize(of: path), "the WAL was deleted at close")
        // Copied alone (no -wal, no -shm), as a backup would: the commit is in it.
        XCTAssertEqual(try metaInCopy(of: path, key: .deviceName, in: directory), "laptop")
    }

    func testOpeningAVaultWithItsKeptWALWritesNothing() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        _ = try VaultDatabase.create(at: path)
        let before = try modificationTime(path + "-wal")
        var reopened: VaultDatabase? = try VaultDatabase.open(at: path)
        XCTAssertEqual(try reopened?.meta(.format), "coffer-vault")
        reopened = nil
        let after = try modificationTime(path + "-wal")
        XCTAssertTrue(before.tv_sec == after.tv_sec && before.tv_nsec == after.tv_nsec,
                      "opening and reading wrote to the WAL (GRDB's start-up write, or a migration)")
    }

    func testABookkeepingCommitIsSavedAndTheWriterCommitsWithFullSyncAgain() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let database = try VaultDatabase.create(at: path)
        try database.writeBookkeeping { db in try VaultDatabase.setMeta(.lastSync, "2026-11-27T09:00:00.000Z", in: db) }
        XCTAssertEqual(try database.meta(.lastSync), "2026-11-27T09:00:00.000Z")
        XCTAssertEqual(try database.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }, 2, "FULL")
        // A failing body rolls back and still leaves the writer at FULL.
        XCTAssertThrowsError(try database.writeBookkeeping { db in
            try VaultDatabase.setMeta(.lastSync, "lost", in: db)
            throw DatabaseError(message: "refused")
        })
        XCTAssertEqual(try database.meta(.lastSync), "2026-11-27T09:00:00.000Z")
        XCTAssertEqual(try database.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }, 2, "FULL")
    }

    func testALargeWALIsEmptiedWhenTheVaultCloses() throws {
        let directory = try makeTemporaryDirectory()
        let path = directory.appendingPathComponent("vault.db").path
        var database: VaultDatabase? = try VaultDatabase.create(at: path)
        let big = String(repeating: "x", count: VaultDatabase.keptWALLimit + (1 << 20))
        try database?.setMeta(.deviceName, big)
        XCTAssertGreaterThan(VaultDatabase.walSize(of: path) ?? 0, VaultDatabase.keptWALLimit)
        database = nil
        XCTAssertLessThanOrEqual(VaultDatabase.walSize(of: path) ?? 0, VaultDatabase.keptWALLimit)
        XCTAssertEqual(try metaInCopy(of: path, key: .deviceName, in: directory)?.count, big.count)
        // Emptied, the WAL is made again by the next open, and the vault reads as before.
        XCTAssertEqual(try VaultDatabase.open(at: path).meta(.deviceName)?.count, big.count)
    }
}

extension VaultWALTests {
    func testANewVaultWhereOneWasDeletedDoesNotTakeItsWAL() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        var old: VaultDatabase? = try VaultDatabase.create(at: path)
        try old?.setMeta(.deviceName, "the deleted vault's")
        old = nil
        XCTAssertNotNil(VaultDatabase.walSize(of: path))
        XCTAssertEqual(unlink(path), 0)
        let new = try VaultDatabase.create(at: path)
        XCTAssertNil(try new.meta(.deviceName))
        XCTAssertEqual(try new.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }, "ok")
        XCTAssertEqual(try VaultDatabase.open(at: path).meta(.format), "coffer-vault")
    }
}

extension VaultWALTests {
    /// Each open rebuilds the WAL index from the kept frames, so commits of one process after
    /// another pile up in the WAL until something empties it: bounded at close.
    func testTheKeptWALStaysSmallOverManyIdleSyncs() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        _ = try VaultDatabase.create(at: path)
        var largest = 0
        for round in 0..<120 {
            let database = try VaultDatabase.open(at: path)
            try database.writeBookkeeping { db in
                try VaultDatabase.setMeta(.lastSync, "2026-11-27T09:00:\(String(format: "%02d", round % 60)).000Z", in: db)
            }
            largest = max(largest, VaultDatabase.walSize(of: path) ?? 0)
        }
        XCTAssertLessThanOrEqual(largest, VaultDatabase.keptWALLimit + (64 << 10), "the WAL grew with every process")
        XCTAssertEqual(try VaultDatabase.open(at: path).meta(.lastSync), "2026-11-27T09:00:59.000Z")
    }
}
