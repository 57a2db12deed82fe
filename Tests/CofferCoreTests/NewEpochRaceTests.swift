import Foundation
import XCTest
@testable import CofferCore

/// Issue 42, finding 4: an unlock with the right passphrase, the rotation it starts and a sync
/// that brings a new epoch must not lock each other out. Each test puts the steps of two
/// processes (or of a screen's unlock and its sync) in one order that once ended in "The vault is
/// locked."; every step is one call on a `Vault` actor, so the order is the one written.
final class NewEpochRaceTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-new-epoch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private var passphrase: SecureBuffer { SharedCopyFixture.buffer(SharedCopyFixture.passphrase) }

    private func titles(_ vault: Vault) async throws -> [String] {
        try await vault.listItems().compactMap(\.item?.title).sorted()
    }

    /// The screen's failure: its unlock ends, then the sync that ran beside it stores the new
    /// epoch's key and meets an unlocked vault of the older epoch, then the screen lists the
    /// items. The sync used to lock the vault there, and the listing said "The vault is locked.";
    /// the session now takes the key and stays open.
    func testASyncBringingANewEpochRightAfterAnUnlockLeavesTheVaultOpen() async throws {
        var fixture = try await SharedCopyFixture(directory: directory)
        let screen = try fixture.open()
        try await screen.unlock(passphrase: passphrase)
        let epoch = try fixture.bringEpoch(by: RosterPeople.bob)
        let outcome = await screen.takeNewerEpoch()
        XCTAssertEqual(outcome, .taken(epoch))
        let listed = try await titles(screen)
        XCTAssertEqual(listed, ["Bike", "Door"])
        XCTAssertEqual(try screen.database.meta(.shareEpoch), String(epoch))
        XCTAssertNil(try screen.database.meta(.sharePendingSeal))
        let again = await screen.takeNewerEpoch()
        XCTAssertNil(again, "an epoch the session holds is not taken twice")
    }

    /// The rotation an unlock starts: the epoch Alice began comes back in her own sync, whose
    /// session takes it and gives the vault new keys there and then: the keystore no longer opens
    /// with the old vault key, and what is written next does not open with the old ring.
    func testTheEpochThisPersonBeganGivesTheOpenVaultNewKeys() async throws {
        var fixture = try await SharedCopyFixture(directory: directory)
        let screen = try fixture.open()
        try await screen.unlock(passphrase: passphrase)
        let old = try await screen.unlockedSession()
        let oldRing = try old.ring.serialized().withUnsafeBytes { try KeyRing.parse($0) }
        let oldVaultKey = old.vaultKey.withUnsafeBytes { SecureBuffer(copying: $0) }
        let epoch = try fixture.bringEpoch(by: fixture.alice)
        let outcome = await screen.takeNewerEpoch()
        XCTAssertEqual(outcome, .taken(epoch))
        let generation = try await screen.unlockedSession().ring.generation
        XCTAssertEqual(UInt64(generation), epoch)
        let keystore = try XCTUnwrap(try screen.database.read { try VaultDatabase.currentKeystore(in: $0) })
        XCTAssertThrowsError(try KeystoreSealing.openRing(keystore, vaultKey: oldVaultKey), "the keystore opens with the old vault key")
        let gate = try await screen.add(Item(title: "Gate", created: .now()))
        let record = try XCTUnwrap(try screen.database.read { try VaultDatabase.currentItem(gate.id, in: $0) }?.record)
        XCTAssertThrowsError(try ItemSealing.open(record, ring: oldRing), "a new item opens with the old keys")
        let listed = try await titles(screen)
        XCTAssertEqual(listed, ["Bike", "Door", "Gate"])
    }

    /// A sync read the copy's epoch, another process's unlock took the new one, then the sync
    /// stored the key it had fetched: a seal of an epoch already held. It is not kept, and one
    /// kept by an older version is dropped by the next unlock instead of locking every sync.
    func testASealOfAnEpochAlreadyTakenLocksNothing() async throws {
        var fixture = try await SharedCopyFixture(directory: directory)
        let screen = try fixture.open()
        try await screen.unlock(passphrase: passphrase)
        let epoch = try fixture.bringEpoch(by: RosterPeople.bob)
        let stale = try XCTUnwrap(try screen.database.meta(.sharePendingSeal))
        let command = try fixture.open()
        try await command.unlock(passphrase: passphrase)  // takes it
        XCTAssertNil(try screen.database.meta(.sharePendingSeal))

        let sealed = String(stale.split(separator: " ")[1])
        XCTAssertFalse(try screen.keepPendingSeal(sealed, epoch: epoch), "the copy holds that epoch already")
        XCTAssertNil(try screen.database.meta(.sharePendingSeal))

        try screen.database.setMeta(.sharePendingSeal, stale)
        let outcome = await screen.takeNewerEpoch()
        XCTAssertEqual(outcome, .taken(epoch), "the screen's session was one epoch behind")
        XCTAssertNil(try screen.database.meta(.sharePendingSeal), "the unlock dropped the seal of an epoch it holds")
        let isLocked = await screen.isLocked
        XCTAssertFalse(isLocked)
        let again = await screen.takeNewerEpoch()
        XCTAssertNil(again)
    }

    /// A command unlocked, then the screen took the epoch Alice began and gave the vault new
    /// keys: the command's session cannot open the keystore. Its writes used to fail with
    /// "The vault is locked."; they open the vault again with the keys of its unlock, and what
    /// they write is sealed under the new keys, not a retired one.
    func testACommandWhoseSessionWentStaleWritesUnderTheNewKeys() async throws {
        var fixture = try await SharedCopyFixture(directory: directory)
        let command = try fixture.open()
        try await command.unlock(passphrase: passphrase)
        let before = try await command.listItems()
        let door = try XCTUnwrap(before.first { $0.item?.title == "Door" }?.item)
        let bike = try XCTUnwrap(before.first { $0.item?.title == "Bike" }?.id)
        let epoch = try fixture.bringEpoch(by: fixture.alice)
        let screen = try fixture.open()
        try await screen.unlock(passphrase: passphrase)
        let generation = try await screen.unlockedSession().ring.generation
        XCTAssertEqual(UInt64(generation), epoch)

        let gate = try await command.add(Item(title: "Gate", created: .now()))
        var edited = door
        edited.title = "Front door"
        _ = try await command.update(edited, from: door)
        try await command.remove(bike)

        let listed = try await titles(screen)
        XCTAssertEqual(listed, ["Front door", "Gate"])
        let ring = try await screen.unlockedSession().ring
        XCTAssertTrue(ring.contains(gate.id), "the command's new key reached the keystore")
        // What the command wrote is sealed under the new keys; nothing else was sealed again.
        for record in try screen.database.read({ try VaultDatabase.currentItems(in: $0) }).map(\.record)
        where [gate.id, door.id].contains(record.id) {
            XCTAssertNoThrow(try ItemSealing.open(record, ring: ring, allowingRetired: false), "\(record.id) is sealed under a retired key")
        }
        let commandSees = try await titles(command)
        XCTAssertEqual(commandSees, ["Front door", "Gate"])
    }

    /// An unlock (with kept keys: the screen's `takeNewKeys`, its reload) read the member secrets,
    /// then another process took the new epoch and stored its secrets: the ones read open no
    /// longer, and those stored now are tried once.
    func testAnUnlockWhoseSecretsWentStaleMidwayTriesThoseStoredNow() async throws {
        var fixture = try await SharedCopyFixture(directory: directory)
        let keys = try PassphraseKeys(passphrase: passphrase, parameters: SharedCopyFixture.kdf)
        let screen = try fixture.open()
        let stored = try XCTUnwrap(try screen.database.meta(.shareMember))
        let vaultID = try XCTUnwrap(screen.sharedVaultID)
        let (readBefore, kdf) = try MemberSecrets.open(stored, keys: keys, vaultID: vaultID)
        let epoch = try fixture.bringEpoch(by: RosterPeople.bob)
        let command = try fixture.open()
        try await command.unlock(keys: keys)
        XCTAssertEqual(try command.database.meta(.shareEpoch), String(epoch))

        try await screen.unlockShared(readBefore, readFrom: stored, keys: keys, kdf: kdf, vaultID: vaultID)
        let listed = try await titles(screen)
        XCTAssertEqual(listed, ["Bike", "Door"])
    }

    /// Found by `NewEpochStressTests`: two processes take the epoch Alice began at once. The
    /// screen's unlock opened the keystore under the old epoch's key; before it wraps it under
    /// the new one, the command takes the epoch and gives the vault new keys. The screen's write
    /// then met a keystore its session cannot open and its unlock said "The vault is locked.";
    /// it now starts over with the secrets stored now, and the vault gets new keys once.
    func testAnUnlockHalfWayThroughAnEpochAnotherProcessReKeyedStartsOver() async throws {
        // The pause blocks one thread of Swift's pool (one per core) while the command runs on
        // another: on a one-core host this fails by its 60 s wait, never skips (every CI host has two).
        var fixture = try await SharedCopyFixture(directory: directory)
        let epoch = try fixture.bringEpoch(by: fixture.alice)
        let screen = try fixture.open(), command = try fixture.open()
        let commandDone = DispatchSemaphore(value: 0)
        let paused = PausedOnce()
        // Blocks the screen's actor call at the point while the command runs on another thread
        // (the detached task does not see this task-local hook).
        let hook: @Sendable (String) -> Void = { name in
            guard name == "unlock.shared.opened-older-epoch", paused.isFirst() else { return }
            Task.detached {
                try? await command.unlock(passphrase: SharedCopyFixture.buffer(SharedCopyFixture.passphrase))
                commandDone.signal()
            }
            if commandDone.wait(timeout: .now() + 60) == .timedOut { XCTFail("the command's unlock did not finish") }
        }
        try await StepPause.$hook.withValue(hook) { try await screen.unlock(passphrase: passphrase) }
        XCTAssertTrue(paused.wasReached, "the screen's unlock never took the epoch's key itself")

        // One new generation, the command's, taken by the screen in place: not made twice.
        let screenSession = try await screen.unlockedSession(), commandSession = try await command.unlockedSession()
        XCTAssertEqual(UInt64(screenSession.ring.generation), epoch)
        XCTAssertEqual(UInt64(commandSession.ring.generation), epoch)
        XCTAssertTrue(screenSession.vaultKey.isEqual(to: commandSession.vaultKey), "the screen made a generation of its own")
        let listed = try await titles(screen)
        XCTAssertEqual(listed, ["Bike", "Door"])
    }
}

/// Whether a pause point was reached, and only its first visit paused.
private final class PausedOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var reached = false

    func isFirst() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        defer { reached = true }
        return !reached
    }

    var wasReached: Bool {
        lock.lock()
        defer { lock.unlock() }
        return reached
    }
}
