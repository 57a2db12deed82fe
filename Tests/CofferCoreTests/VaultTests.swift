import CofferTestSupport
import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// The `Vault` actor over a real file: keys, edits as pending changes, all-or-nothing writes.
final class VaultTests: XCTestCase {
    private let passphrase = "correct horse"

    private func makeVault(clock: TestClock = TestClock()) throws -> (vault: Vault, path: String) {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase(passphrase), kdf: Fixture.fastKDF(),
                                     deviceName: "test device", clock: clock.function)
        return (vault, path)
    }

    private func localPending(_ vault: Vault) throws -> [PendingChange] {
        try vault.database.read { db in
            try VaultDatabase.pendingChanges(.items, source: .local, in: db)
                + VaultDatabase.pendingChanges(.keystores, source: .local, in: db)
        }
    }

    private func keystore(_ vault: Vault) throws -> KeystoreRecord? {
        try vault.database.read { db in try VaultDatabase.currentKeystore(in: db) }
    }

    // MARK: Create, lock, unlock

    func testCreateLeavesAnUnlockedEmptyVaultWithAPendingKeystore() async throws {
        let clock = TestClock()
        let (vault, _) = try makeVault(clock: clock)
        let isLocked = await vault.isLocked
        XCTAssertFalse(isLocked)
        let items = try await vault.listItems()
        XCTAssertEqual(items, [])
        XCTAssertEqual(try localPending(vault).map(\.collection), [.keystores])
        XCTAssertEqual(try vault.database.meta(.deviceName), "test device")
        XCTAssertEqual(try vault.database.meta(.created), clock.now.iso8601)
        XCTAssertNotNil(try vault.database.meta(.vaultID))
        XCTAssertNotEqual(try vault.database.meta(.vaultID), try vault.database.meta(.deviceID))
    }

    func testCreateRefusesEmptyPassphraseAndWeakParametersWithoutLeavingAFile() throws {
        let directory = try makeTemporaryDirectory()
        let path = directory.appendingPathComponent("vault.db").path
        XCTAssertEqual(thrownError { try Vault.create(at: path, passphrase: SecureBuffer(count: 0), kdf: Fixture.fastKDF()) }
                       as? CoreError, .emptyPassphrase)
        let weak = KDFParameters.fresh(memory: 16 * 1_048_576, iterations: 3)
        XCTAssertEqual(thrownError { try Vault.create(at: path, passphrase: Fixture.passphrase("x"), kdf: weak) } as? CoreError,
                       .kdfDowngrade(memoryBytes: 16 * 1_048_576, iterations: 3))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testCreateOverAnExistingVaultChangesNothing() async throws {
        let (vault, path) = try makeVault()
        try await vault.add(Fixture.item(id: "keep"))
        XCTAssertEqual(thrownError { try Vault.create(at: path, passphrase: Fixture.passphrase("other"), kdf: Fixture.fastKDF()) }
                       as? CoreError, .vaultExists(path: path))
        let reopened = try Vault.open(at: path)
        try await reopened.unlock(passphrase: Fixture.passphrase(passphrase))
        let kept = try await reopened.item("keep")
        XCTAssertEqual(kept.id, "keep")
    }

    func testLockThenUnlock() async throws {
        let (vault, _) = try makeVault()
        try await vault.add(Fixture.item(id: "a"))
        await vault.lock()
        var isLocked = await vault.isLocked
        XCTAssertTrue(isLocked)

        let wrong = await thrownError { try await vault.unlock(passphrase: Fixture.passphrase("wrong")) }
        XCTAssertEqual(wrong as? CoreError, .wrongPassphrase)
        isLocked = await vault.isLocked
        XCTAssertTrue(isLocked)

        try await vault.unlock(passphrase: Fixture.passphrase(passphrase))
        isLocked = await vault.isLocked
        XCTAssertFalse(isLocked)
        let item = try await vault.item("a")
        XCTAssertEqual(item, Fixture.item(id: "a"))
    }

    /// The unlock derives the keys from the keystore's passphrase half (read without its key
    /// ring) before reading the rest: that half is the current keystore's, pending or stable.
    func testTheKeystoresPassphraseHalfIsReadWithoutItsRing() async throws {
        let (vault, _) = try makeVault()
        func wrapping() throws -> KeystoreWrapping? { try vault.database.read(VaultDatabase.currentKeystoreWrapping) }
        func current() throws -> KeystoreRecord? { try vault.database.read(VaultDatabase.currentKeystore) }
        var record = try XCTUnwrap(try current())
        XCTAssertEqual(try wrapping(), KeystoreWrapping(kdf: record.kdf, verifier: record.verifier), "the pending keystore's")

        // Stable only (as after a sync), then a passphrase change pending over it.
        try vault.database.write { db in
            try db.execute(sql: "INSERT INTO keystores (id, last_modified, record) SELECT id, 5, record FROM pending WHERE collection = 'keystores'")
            try db.execute(sql: "DELETE FROM pending WHERE collection = 'keystores'")
        }
        XCTAssertEqual(try wrapping(), KeystoreWrapping(kdf: record.kdf, verifier: record.verifier), "the stable keystore's")
        try await vault.changePassphrase(to: Fixture.passphrase("another pass phrase"), kdf: Fixture.fastKDF())
        record = try XCTUnwrap(try current())
        XCTAssertEqual(try wrapping(), KeystoreWrapping(kdf: record.kdf, verifier: record.verifier), "the pending change's")
        await vault.lock()
        let wrong = await thrownError { try await vault.unlock(passphrase: Fixture.passphrase(passphrase)) }
        XCTAssertEqual(wrong as? CoreError, .wrongPassphrase)
        try await vault.unlock(passphrase: Fixture.passphrase("another pass phrase"))
    }

    func testReopenedVaultIsLockedUntilUnlocked() async throws {
        let (vault, path) = try makeVault()
        let added = try await vault.add(Fixture.item(id: "a", title: "Bank"))
        let reopened = try Vault.open(at: path)
        let isLocked = await reopened.isLocked
        XCTAssertTrue(isLocked)
        let error = await thrownError { try await reopened.listItems() }
        XCTAssertEqual(error as? CoreError, .locked)
        try await reopened.unlock(passphrase: Fixture.passphrase(passphrase))
        let items = try await reopened.listItems()
        XCTAssertEqual(items.map(\.item), [added])
    }

    func testLockWipesKeysAndEveryOperationThenThrowsLocked() async throws {
        let (vault, _) = try makeVault()
        try await vault.add(Fixture.item(id: "a"))
        let session = try await vault.unlockedSession()
        XCTAssertFalse(session.ring.hashingKey.isZero)
        XCTAssertFalse(session.keys.wrappingKey.isZero)
        XCTAssertFalse(session.vaultKey.isZero)

        await vault.lock()
        XCTAssertTrue(session.ring.hashingKey.isZero)
        XCTAssertTrue(session.keys.wrappingKey.isZero)
        XCTAssertTrue(session.vaultKey.isZero)
        XCTAssertEqual(session.ring.key(for: "a")?.isZero, true)

        let operations: [(String, (Vault) async throws -> Void)] = [
            ("listItems", { _ = try await $0.listItems() }),
            ("item", { _ = try await $0.item("a") }),
            ("add", { try await $0.add(Fixture.item(id: "b")) }),
            ("addAll", { try await $0.addAll([Fixture.item(id: "c")]) }),
            ("update", { try await $0.update(Fixture.item(id: "a", title: "changed")) }),
            ("remove", { try await $0.remove("a") }),
            ("changePassphrase", { try await $0.changePassphrase(to: Fixture.passphrase("new"), kdf: Fixture.fastKDF()) }),
        ]
        for (name, operation) in operations {
            let error = await thrownError { try await operation(vault) }
            XCTAssertEqual(error as? CoreError, .locked, name)
        }
        XCTAssertEqual(try localPending(vault).filter { $0.collection == .items }.map(\.id), ["a"], "nothing was written")
    }

    // MARK: Reading and writing items

    func testAddListAndReadItems() async throws {
        let (vault, _) = try makeVault()
        let first = Fixture.item(id: "first", title: "Mail")
        let second = Fixture.item(id: "second", title: "Bank")
        try await vault.add(first)
        try await vault.add(second)

        let listed = try await vault.listItems()
        XCTAssertEqual(Set(listed.compactMap(\.item?.id)), ["first", "second"])
        XCTAssertTrue(listed.allSatisfy { $0.hasLocalChange && !$0.hasConflict && !$0.needsReview })
        let read = try await vault.item("second")
        XCTAssertEqual(read, second)
        let missing = await thrownError { try await vault.item("nope") }
        XCTAssertEqual(missing as? CoreError, .noSuchItem(id: "nope"))

        // Each new item's key went into the keystore in the same transaction.
        let reopened = try Vault.open(at: vault.database.path)
        try await reopened.unlock(passphrase: Fixture.passphrase(passphrase))
        let ring = try await reopened.unlockedSession().ring
        XCTAssertEqual(Set(ring.itemIDs), ["first", "second"])
    }

    func testAddOfAnInvalidItemStoresNothing() async throws {
        let (vault, _) = try makeVault()
        let keystoreBefore = try keystore(vault)
        let invalid = Fixture.item(id: "bad", title: "", username: String(repeating: "u", count: 501))
        let error = await thrownError { try await vault.add(invalid) }
        guard case .invalidItem(let id, let problems)? = error as? CoreError else { return XCTFail("expected invalidItem") }
        XCTAssertEqual(id, "bad")
        XCTAssertEqual(Set(problems.map(\.field)), ["title", "entry.username"])

        let listed = try await vault.listItems()
        XCTAssertEqual(listed, [])
        XCTAssertEqual(try localPending(vault).map(\.collection), [.keystores])
        XCTAssertEqual(try keystore(vault), keystoreBefore)
        let ring = try await vault.unlockedSession().ring
        XCTAssertFalse(ring.contains("bad"))
    }

    func testAddAllIsAllOrNothingOnDuplicateIDsInTheBatch() async throws {
        let (vault, _) = try makeVault()
        let batch = [Fixture.item(id: "a"), Fixture.item(id: "b"), Fixture.item(id: "a", title: "again")]
        let error = await thrownError { try await vault.addAll(batch) }
        XCTAssertEqual(error as? CoreError, .duplicateItem(id: "a"))
        let listed = try await vault.listItems()
        XCTAssertEqual(listed, [])
        XCTAssertEqual(try localPending(vault).map(\.collection), [.keystores])
    }

    func testAddAllIsAllOrNothingWhenAnIDIsAlreadyStored() async throws {
        let (vault, _) = try makeVault()
        try await vault.add(Fixture.item(id: "old"))
        let keystoreBefore = try keystore(vault)
        let error = await thrownError {
            try await vault.addAll([Fixture.item(id: "new1"), Fixture.item(id: "old", title: "clash"), Fixture.item(id: "new2")])
        }
        XCTAssertEqual(error as? CoreError, .duplicateItem(id: "old"))
        let listed = try await vault.listItems()
        XCTAssertEqual(listed.compactMap(\.item), [Fixture.item(id: "old")])
        XCTAssertEqual(try keystore(vault), keystoreBefore)
        let ring = try await vault.unlockedSession().ring
        XCTAssertFalse(ring.contains("new1"))
    }

    func testAddAllWithOneInvalidItemStoresNone() async throws {
        let (vault, _) = try makeVault()
        let error = await thrownError { try await vault.addAll([Fixture.item(id: "ok"), Fixture.item(id: "x", title: " ")]) }
        guard case .invalidItem(let id, _)? = error as? CoreError else { return XCTFail("expected invalidItem") }
        XCTAssertEqual(id, "x")
        let listed = try await vault.listItems()
        XCTAssertEqual(listed, [])
    }

    func testAddAllStoresEveryItemInOneGo() async throws {
        let (vault, _) = try makeVault()
        let items = (0..<50).map { Fixture.item(id: "item-\($0)", title: "Item \($0)") }
        try await vault.addAll(items)
        let listed = try await vault.listItems()
        XCTAssertEqual(listed.compactMap(\.item).sorted { $0.id < $1.id }, items.sorted { $0.id < $1.id })
        XCTAssertEqual(try vault.database.status().items, 50)
    }

    func testUpdateRecordsHistoryOnlyForEntryChanges() async throws {
        let clock = TestClock()
        let (vault, _) = try makeVault(clock: clock)
        let original = Fixture.item(id: "a", title: "Mail", password: "one")
        try await vault.add(original)

        clock.advance(milliseconds: 1000)
        var edited = original
        edited.title = "Mail (work)"
        let retitled = try await vault.update(edited)
        XCTAssertEqual(retitled.title, "Mail (work)")
        XCTAssertEqual(retitled.history, [])
        XCTAssertEqual(retitled.modified, clock.now)

        clock.advance(milliseconds: 1000)
        edited.entry.password = "two"
        edited.created = Timestamp(milliseconds: 0)  // ignored: created belongs to the stored item
        edited.history = [HistoryEntry(created: Fixture.epoch, patch: .object([:]))]  // ignored too
        let changed = try await vault.update(edited)
        XCTAssertEqual(changed.entry.password, "two")
        XCTAssertEqual(changed.created, original.created)
        XCTAssertEqual(changed.history, [HistoryEntry(created: clock.now, patch: .object(["password": .string("one")]))])
        let stored = try await vault.item("a")
        XCTAssertEqual(stored, changed)

        // An update that changes nothing writes nothing and keeps `modified`.
        clock.advance(milliseconds: 1000)
        let unchanged = try await vault.update(changed)
        XCTAssertEqual(unchanged.modified, changed.modified)
    }

    func testManyUpdatesOfOneItemLeaveOnePendingRow() async throws {
        let clock = TestClock()
        let (vault, _) = try makeVault(clock: clock)
        var item = Fixture.item(id: "a")
        try await vault.add(item)
        for version in 1...20 {
            clock.advance(milliseconds: 10)
            item.entry.password = "password \(version)"
            item = try await vault.update(item)
        }
        let rows = try localPending(vault).filter { $0.collection == .items }
        XCTAssertEqual(rows.map(\.id), ["a"])
        XCTAssertEqual(rows.map(\.action), [.add])
        let stored = try await vault.item("a")
        XCTAssertEqual(stored.entry.password, "password 20")
        XCTAssertEqual(stored.history.count, 20)
    }

    func testUpdateWithInvalidFieldsStoresNothing() async throws {
        let (vault, _) = try makeVault()
        let original = Fixture.item(id: "a")
        try await vault.add(original)
        var edited = original
        edited.title = ""
        edited.entry.notes = String(repeating: "n", count: 10_001)
        let error = await thrownError { try await vault.update(edited) }
        guard case .invalidItem(_, let problems)? = error as? CoreError else { return XCTFail("expected invalidItem") }
        XCTAssertEqual(Set(problems.map(\.field)), ["title", "entry.notes"])
        let stored = try await vault.item("a")
        XCTAssertEqual(stored, original)
    }

    func testUpdateOrRemoveOfAnUnknownItem() async throws {
        let (vault, _) = try makeVault()
        let update = await thrownError { try await vault.update(Fixture.item(id: "ghost")) }
        XCTAssertEqual(update as? CoreError, .noSuchItem(id: "ghost"))
        let remove = await thrownError { try await vault.remove("ghost") }
        XCTAssertEqual(remove as? CoreError, .noSuchItem(id: "ghost"))
    }

    func testRemoveOfANeverSyncedItemLeavesOnlyARemovalBasedOnNothing() async throws {
        let (vault, _) = try makeVault()
        try await vault.add(Fixture.item(id: "a"))
        try await vault.add(Fixture.item(id: "b"))
        try await vault.remove("a")
        let listed = try await vault.listItems()
        XCTAssertEqual(listed.map(\.id), ["b"])
        let error = await thrownError { try await vault.item("a") }
        XCTAssertEqual(error as? CoreError, .noSuchItem(id: "a"))
        let pending = try localPending(vault).filter { $0.collection == .items }
        XCTAssertEqual(pending.map(\.id), ["a", "b"])
        XCTAssertEqual(pending.map(\.action), [.remove, .add])
        XCTAssertEqual(pending.first?.lastModified, 0, "based on nothing: the next sync sends nothing for it")
        let again = await thrownError { try await vault.remove("a") }
        XCTAssertEqual(again as? CoreError, .noSuchItem(id: "a"))
    }

    /// Moves the item's pending add into `items` as if the server had accepted it at `lastModified`.
    private func pretendSynced(_ id: String, lastModified: Int64, in vault: Vault) throws {
        try vault.database.write { db in
            let change = try XCTUnwrap(try VaultDatabase.pendingChange(.items, id, source: .local, in: db))
            var record = try RecordCoding.decode(ItemRecord.self, from: change.record)
            record.lastModified = lastModified
            try VaultDatabase.saveStableItem(record, in: db)
            try VaultDatabase.deletePending(.items, id, source: .local, in: db)
        }
    }

    func testLocalChangeIsReadOverTheStableRecord() async throws {
        let (vault, _) = try makeVault()
        try await vault.add(Fixture.item(id: "a", password: "server"))
        try pretendSynced("a", lastModified: 100, in: vault)
        var listed = try await vault.listItems()
        XCTAssertEqual(listed.map(\.hasLocalChange), [false])

        var edited = try await vault.item("a")
        XCTAssertEqual(edited.entry.password, "server")
        edited.entry.password = "local"
        try await vault.update(edited)

        let read = try await vault.item("a")
        XCTAssertEqual(read.entry.password, "local")
        listed = try await vault.listItems()
        XCTAssertEqual(listed.map(\.item?.entry.password), ["local"])
        XCTAssertEqual(listed.map(\.hasLocalChange), [true])
        let rows = try localPending(vault).filter { $0.collection == .items }
        XCTAssertEqual(rows.map(\.action), [.update])
        XCTAssertEqual(rows.map(\.lastModified), [100])
        let stable = try XCTUnwrap(try vault.database.read { db in try VaultDatabase.stableItem("a", in: db) })
        let ring = try await vault.unlockedSession().ring
        XCTAssertEqual(try ItemSealing.open(stable, ring: ring).entry.password, "server", "the stable record is untouched")

        // Removing a synced item records a remove based on the stable timestamp.
        try await vault.remove("a")
        let removal = try localPending(vault).filter { $0.collection == .items }
        XCTAssertEqual(removal.map(\.action), [.remove])
        XCTAssertEqual(removal.map(\.lastModified), [100])
        listed = try await vault.listItems()
        XCTAssertEqual(listed, [])
    }

    func testListingMarksItemsWithoutKeysAndCorruptItems() async throws {
        let (vault, _) = try makeVault()
        try await vault.add(Fixture.item(id: "good"))
        let foreignRing = KeyRing()
        foreignRing.addKey(for: "foreign")
        let foreign = try ItemSealing.seal(Fixture.item(id: "foreign"), ring: foreignRing, lineage: .first, lastModified: 5)
        try await vault.add(Fixture.item(id: "broken"))
        try pretendSynced("broken", lastModified: 6, in: vault)
        try vault.database.write { db in
            try VaultDatabase.saveStableItem(foreign, in: db)
            try db.execute(sql: "UPDATE items SET encrypted = 'AAAA' WHERE id = 'broken'")
        }
        let listed = try await vault.listItems()
        let states = Dictionary(uniqueKeysWithValues: listed.map { ($0.id, $0.state) })
        XCTAssertEqual(states.count, 3)
        XCTAssertNotNil(listed.first { $0.id == "good" }?.item)
        XCTAssertEqual(states["foreign"], .waitingForKey)
        guard case .corrupt? = states["broken"] else { return XCTFail("expected corrupt, got \(String(describing: states["broken"]))") }
        let error = await thrownError { try await vault.item("foreign") }
        XCTAssertEqual(error as? CoreError, .itemKeyMissing(id: "foreign"))

        // The filtering listing (search, list --tag) keeps matches and every unreadable item.
        try await vault.add(Fixture.item(id: "other", title: "Something else"))
        let filtered = try await vault.listItems(where: { $0.id == "good" })
        XCTAssertEqual(Set(filtered.map(\.id)), ["good", "foreign", "broken"], "not \"other\"")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: filtered.map { ($0.id, $0.state) })["foreign"], .waitingForKey)
        let unfiltered = try await vault.listItems(where: { _ in true })
        let everything = try await vault.listItems()
        XCTAssertEqual(Set(unfiltered.map(\.id)), Set(everything.map(\.id)))
    }

    // MARK: Passphrase

    func testChangePassphraseKeepsItemKeysAndOnlyTheNewPassphraseWorks() async throws {
        let (vault, path) = try makeVault()
        try await vault.addAll([Fixture.item(id: "a"), Fixture.item(id: "b")])
        let sessionBefore = try await vault.unlockedSession()
        let ringBefore = sessionBefore.ring
        let vaultKeyBefore = sessionBefore.vaultKey.bytes
        let keysBefore = ["a", "b"].map { ringBefore.key(for: $0)?.bytes }
        let hashingBefore = ringBefore.hashingKey.bytes
        let ciphertextsBefore = try localPending(vault).filter { $0.collection == .items }.map(\.record)
        let saltBefore = try keystore(vault)?.kdf.salt

        try await vault.changePassphrase(to: Fixture.passphrase("new passphrase"), kdf: Fixture.fastKDF())
        let stillOpen = try await vault.item("a")
        XCTAssertEqual(stillOpen.id, "a")
        XCTAssertNotEqual(try keystore(vault)?.kdf.salt, saltBefore)
        XCTAssertEqual(try localPending(vault).filter { $0.collection == .items }.map(\.record), ciphertextsBefore,
                       "item records are not re-encrypted")

        let reopened = try Vault.open(at: path)
        let old = await thrownError { try await reopened.unlock(passphrase: Fixture.passphrase(self.passphrase)) }
        XCTAssertEqual(old as? CoreError, .wrongPassphrase)
        try await reopened.unlock(passphrase: Fixture.passphrase("new passphrase"))
        let sessionAfter = try await reopened.unlockedSession()
        let ringAfter = sessionAfter.ring
        XCTAssertEqual(sessionAfter.vaultKey.bytes, vaultKeyBefore, "only the wrapping of the vault key changed")
        XCTAssertEqual(["a", "b"].map { ringAfter.key(for: $0)?.bytes }, keysBefore)
        XCTAssertEqual(ringAfter.hashingKey.bytes, hashingBefore)
        let items = try await reopened.listItems()
        XCTAssertEqual(Set(items.compactMap(\.item?.id)), ["a", "b"])
    }

    func testRefusedPassphraseChangeKeepsTheOldPassphrase() async throws {
        let (vault, path) = try makeVault()
        let empty = await thrownError { try await vault.changePassphrase(to: SecureBuffer(count: 0), kdf: Fixture.fastKDF()) }
        XCTAssertEqual(empty as? CoreError, .emptyPassphrase)
        let weak = KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: 2)
        let downgrade = await thrownError { try await vault.changePassphrase(to: Fixture.passphrase("n"), kdf: weak) }
        XCTAssertEqual(downgrade as? CoreError, .kdfDowngrade(memoryBytes: KDFParameters.minimumMemory, iterations: 2))
        let reopened = try Vault.open(at: path)
        try await reopened.unlock(passphrase: Fixture.passphrase(passphrase))
        let isLocked = await reopened.isLocked
        XCTAssertFalse(isLocked)
    }
}
