import CofferTestSupport
import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// Every single-bit change of stored ciphertext is refused as `tampered`: never a crash, never
/// plaintext (right or wrong). Vaults are real files; keys are derived once per vault.
final class TamperTests: XCTestCase {
    private let passphrase = "tamper test passphrase"

    /// A vault with three items: the first made stable (as after a sync), the others pending.
    private func makeVault() async throws -> (vault: Vault, items: [Item]) {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.coffer").path
        let vault = try Vault.create(at: path, passphrase: Fixture.passphrase(passphrase), kdf: Fixture.fastKDF())
        var items: [Item] = []
        for (title, user) in [("Bank", "alice"), ("Mail", "bob"), ("Shop", "carol")] {
            items.append(try await vault.add(Fixture.item(title: title, username: user)))
        }
        let synced = items[0].id
        try vault.database.write { db in
            let change = try XCTUnwrap(try VaultDatabase.pendingChange(.items, synced, source: .local, in: db))
            var record = try RecordCoding.decode(ItemRecord.self, from: change.record)
            record.lastModified = 1_795_319_853_023
            try VaultDatabase.saveStableItem(record, in: db)
            try VaultDatabase.deletePending(.items, synced, source: .local, in: db)
        }
        return (vault, items)
    }

    /// Flips each bit of `sealed` in turn, calls `attempt` with the changed bytes, and returns a
    /// description of every flip whose outcome `isRefused` does not accept (at most a few).
    private func flipEveryBit(of sealed: [UInt8], _ attempt: ([UInt8]) async -> Error?,
                              isRefused: (Int, Error?) -> Bool) async -> (flips: Int, failures: [String]) {
        var bytes = sealed
        var failures: [String] = []
        var flips = 0
        for index in bytes.indices {
            for bit in 0..<8 {
                bytes[index] ^= 1 << bit
                let error = await attempt(bytes)
                flips += 1
                if !isRefused(index, error), failures.count < 5 {
                    failures.append("byte \(index) bit \(bit): \(error.map { "\($0)" } ?? "opened")")
                }
                bytes[index] ^= 1 << bit
            }
        }
        return (flips, failures)
    }

    func testEveryBitOfAStableItemCiphertextIsTampered() async throws {
        let (vault, items) = try await makeVault()
        let original = try XCTUnwrap(try vault.database.read { try VaultDatabase.stableItem(items[0].id, in: $0) })
        let sealed = [UInt8](try XCTUnwrap(Data(base64Encoded: original.encrypted)))
        let result = await flipEveryBit(of: sealed, { bytes in
            var record = original
            record.encrypted = Data(bytes).base64EncodedString()
            do {
                try vault.database.write { try VaultDatabase.saveStableItem(record, in: $0) }
            } catch {
                return error
            }
            return await thrownError { try await vault.item(items[0].id) }
        }, isRefused: { _, error in isTampered(error) })
        XCTAssertEqual(result.flips, sealed.count * 8)
        XCTAssertEqual(result.failures, [])

        try vault.database.write { try VaultDatabase.saveStableItem(original, in: $0) }
        let restored = try await vault.item(items[0].id)
        XCTAssertEqual(restored, items[0])
    }

    func testEveryBitOfAPendingItemCiphertextIsTampered() async throws {
        let (vault, items) = try await makeVault()
        let id = items[1].id
        let change = try XCTUnwrap(try vault.database.read {
            try VaultDatabase.pendingChange(.items, id, source: .local, in: $0)
        })
        let original = try RecordCoding.decode(ItemRecord.self, from: change.record)
        let sealed = [UInt8](try XCTUnwrap(Data(base64Encoded: original.encrypted)))
        let result = await flipEveryBit(of: sealed, { bytes in
            var record = original
            record.encrypted = Data(bytes).base64EncodedString()
            var tampered = change
            do {
                tampered.record = try RecordCoding.encode(record)
                try vault.database.write { try VaultDatabase.savePending(tampered, in: $0) }
            } catch {
                return error
            }
            return await thrownError { try await vault.item(id) }
        }, isRefused: { _, error in isTampered(error) })
        XCTAssertEqual(result.flips, sealed.count * 8)
        XCTAssertEqual(result.failures, [])

        // The list shows a tampered item as corrupt and the others as they are.
        var record = original
        var bytes = sealed
        bytes[bytes.count / 2] ^= 0x10
        record.encrypted = Data(bytes).base64EncodedString()
        var tampered = change
        tampered.record = try RecordCoding.encode(record)
        try vault.database.write { try VaultDatabase.savePending(tampered, in: $0) }
        let listed = try await vault.listItems()
        XCTAssertEqual(listed.count, 3)
        for entry in listed {
            if entry.id == id {
                guard case .corrupt = entry.state else { return XCTFail("tampered item listed as \(entry.state)") }
            } else {
                XCTAssertEqual(entry.item, items.first { $0.id == entry.id })
            }
        }

        try vault.database.write { try VaultDatabase.savePending(change, in: $0) }
        let restored = try await vault.item(id)
        XCTAssertEqual(restored, items[1])
    }

    /// The keystore's two blobs, each bit in turn, through the calls unlock makes — with the
    /// passphrase keys derived once (an unlock per flip would derive them thousands of times).
    func testEveryBitOfTheKeystoreBlobsIsTamperedAndOfTheVerifierAWrongPassphrase() async throws {
        let (vault, items) = try await makeVault()
        let keystore = try XCTUnwrap(try vault.database.read { try VaultDatabase.currentKeystore(in: $0) })
        let keys = try PassphraseKeys(passphrase: Fixture.passphrase(passphrase), parameters: keystore.kdf)
        let vaultKey = try KeystoreSealing.unwrapVaultKey(keystore, keys: keys)
        let ring = try KeystoreSealing.openRing(keystore, vaultKey: vaultKey)
        XCTAssertEqual(Set(ring.itemIDs), Set(items.map(\.id)))

        let wrapped = [UInt8](try XCTUnwrap(Data(base64Encoded: keystore.wrappedKey)))
        let wrappedResult = await flipEveryBit(of: wrapped, { bytes in
            var record = keystore
            record.wrappedKey = Data(bytes).base64EncodedString()
            return thrownError { try KeystoreSealing.unwrapVaultKey(record, keys: keys) }
        }, isRefused: { _, error in isTampered(error) })
        XCTAssertEqual(wrappedResult.flips, wrapped.count * 8)
        XCTAssertEqual(wrappedResult.failures, [])

        let encrypted = [UInt8](try XCTUnwrap(Data(base64Encoded: keystore.encrypted)))
        let ringResult = await flipEveryBit(of: encrypted, { bytes in
            var record = keystore
            record.encrypted = Data(bytes).base64EncodedString()
            return thrownError { try KeystoreSealing.openRing(record, vaultKey: vaultKey) }
        }, isRefused: { _, error in isTampered(error) })
        XCTAssertEqual(ringResult.flips, encrypted.count * 8)
        XCTAssertEqual(ringResult.failures, [])

        let verifier = [UInt8](try XCTUnwrap(Data(base64Encoded: keystore.verifier)))
        let verifierResult = await flipEveryBit(of: verifier, { bytes in
            var record = keystore
            record.verifier = Data(bytes).base64EncodedString()
            return thrownError { try KeystoreSealing.unwrapVaultKey(record, keys: keys) }
        }, isRefused: { _, error in (error as? CoreError) == .wrongPassphrase })
        XCTAssertEqual(verifierResult.flips, verifier.count * 8)
        XCTAssertEqual(verifierResult.failures, [])
    }

    /// A few flips end to end: written into the vault file, then a real unlock.
    func testUnlockRefusesAFlippedKeystoreBit() async throws {
        let (vault, _) = try await makeVault()
        let path = vault.database.path
        let change = try XCTUnwrap(try vault.database.read {
            try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .local, in: $0)
        })
        let keystore = try RecordCoding.decode(KeystoreRecord.self, from: change.record)

        func flipped(_ base64: String, at index: Int) throws -> String {
            var bytes = [UInt8](try XCTUnwrap(Data(base64Encoded: base64)))
            bytes[index % bytes.count] ^= 0x04
            return Data(bytes).base64EncodedString()
        }
        var wrongKey = keystore
        wrongKey.wrappedKey = try flipped(keystore.wrappedKey, at: 20)
        var wrongRing = keystore
        wrongRing.encrypted = try flipped(keystore.encrypted, at: 40)
        var wrongVerifier = keystore
        wrongVerifier.verifier = try flipped(keystore.verifier, at: 3)
        for (record, expectTampered) in [(wrongKey, true), (wrongRing, true), (wrongVerifier, false)] {
            var tampered = change
            tampered.record = try RecordCoding.encode(record)
            try vault.database.write { try VaultDatabase.savePending(tampered, in: $0) }
            let reopened = try Vault.open(at: path)
            let error = await thrownError { try await reopened.unlock(passphrase: Fixture.passphrase(self.passphrase)) }
            if expectTampered {
                XCTAssertTrue(isTampered(error), "\(String(describing: error))")
            } else {
                XCTAssertEqual(error as? CoreError, .wrongPassphrase)
            }
            let locked = await reopened.isLocked
            XCTAssertTrue(locked)
        }
        try vault.database.write { try VaultDatabase.savePending(change, in: $0) }
        let reopened = try Vault.open(at: path)
        try await reopened.unlock(passphrase: Fixture.passphrase(passphrase))
    }
}
