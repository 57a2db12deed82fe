import Foundation
import XCTest
@testable import CofferCore

/// One passphrase, several vaults (architecture §17): the keys a personal vault's unlock returns
/// open a shared vault beside it, whose member secrets are sealed under them, and the personal
/// vault again, without Argon2id; keys of another passphrase open neither; locking a vault wipes
/// its own session's keys, never the copy the caller keeps.
final class OneUnlockTests: XCTestCase {
    private static let kdf = KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: 3)
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-one-unlock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func buffer(_ text: String) -> SecureBuffer { SecureBuffer(copying: Array(text.utf8)) }

    /// A personal vault with one item, and a shared vault beside it sealed under `sealingPassphrase`'s keys.
    private func vaults(sealingPassphrase: String = "correct horse") async throws -> (personal: Vault, shared: Vault) {
        let personalPath = directory.appendingPathComponent("vault.db").path
        let personal = try Vault.create(at: personalPath, passphrase: buffer("correct horse"), kdf: Self.kdf)
        try await personal.add(Item(title: "Bank", created: .now()))
        await personal.lock()
        let keys = try PassphraseKeys(passphrase: buffer(sealingPassphrase), parameters: Self.kdf)
        let vaultID = SharedVaultID.random()
        let epochKey = SecureBuffer.random(count: EpochCommitment.keyLength)
        let secrets = MemberSecrets(epoch: 1, epochKey: epochKey, person: PersonKeys())
        let shared = try Vault.create(at: directory.appendingPathComponent("family.db").path, passphrase: epochKey, kdf: Self.kdf, meta: [
            .sharePersonalVault: personalPath, .shareVault: vaultID.bucket, .shareName: "family",
            .shareMember: try secrets.sealed(under: keys, kdf: Self.kdf, vaultID: vaultID),
        ])
        try await shared.add(Item(title: "Netflix", created: .now()))
        await shared.lock()
        return (personal, shared)
    }

    func testThePersonalUnlocksKeysOpenTheSharedVaultAndThePersonalAgain() async throws {
        let (personal, shared) = try await vaults()
        let keys = try await personal.unlock(passphrase: buffer("correct horse"))
        XCTAssertTrue(shared.opens(with: keys))
        XCTAssertTrue(personal.opens(with: keys))
        try await shared.unlock(keys: keys)
        let titles = try await shared.listItems().compactMap(\.item?.title)
        XCTAssertEqual(titles, ["Netflix"])

        await personal.lock()
        await shared.lock()
        XCTAssertFalse(keys.wrappingKey.isZero, "locking wiped the vaults' own copies, not the caller's")
        try await personal.unlock(keys: keys)
        let personalTitles = try await personal.listItems().compactMap(\.item?.title)
        XCTAssertEqual(personalTitles, ["Bank"])
        let isLocked = await personal.isLocked
        XCTAssertFalse(isLocked)
    }

    /// The shared vault's unlock returns the person's keys too: they open the personal vault.
    func testTheSharedUnlocksKeysOpenThePersonalVault() async throws {
        let (personal, shared) = try await vaults()
        let keys = try await shared.unlock(passphrase: buffer("correct horse"))
        try await personal.unlock(keys: keys)
        let isLocked = await personal.isLocked
        XCTAssertFalse(isLocked)
    }

    func testKeysOfAnotherPassphraseOpenNothing() async throws {
        let (personal, shared) = try await vaults(sealingPassphrase: "battery staple")
        let keys = try await personal.unlock(passphrase: buffer("correct horse"))
        XCTAssertFalse(shared.opens(with: keys))
        do {
            try await shared.unlock(keys: keys)
            XCTFail("another passphrase's keys opened the shared vault")
        } catch CoreError.wrongPassphrase {}
        let isLocked = await shared.isLocked
        XCTAssertTrue(isLocked)
        let other = try PassphraseKeys(passphrase: buffer("battery staple"), parameters: Self.kdf)
        await personal.lock()
        XCTAssertFalse(personal.opens(with: other))
        do {
            try await personal.unlock(keys: other)
            XCTFail("another passphrase's keys opened the personal vault")
        } catch CoreError.wrongPassphrase {}
    }

    /// `sharedVaultPaths` finds the shared copies beside a personal vault, not the personal one
    /// nor a file that is not a vault.
    func testTheSharedVaultsBesideThePersonalOne() async throws {
        let (personal, shared) = try await vaults()
        try Data("not a vault".utf8).write(to: directory.appendingPathComponent("notes.db"))
        XCTAssertEqual(Vault.sharedVaultPaths(besidePersonalVault: personal.database.path), [shared.database.path])
    }
}
