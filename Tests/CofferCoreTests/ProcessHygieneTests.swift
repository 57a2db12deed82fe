@testable import CofferCore
import CofferSystem
import Foundation
import XCTest

/// The process protections of architecture §2, observed from inside.
final class ProcessHygieneTests: XCTestCase {
    /// The core limit half is checked on the real binary (CofferCLITests/CoreDumpTests): set here,
    /// in the test process, it would be inherited by every program later tests start.
    func testHardeningTurnsOffDumping() throws {
        XCTAssertTrue(ProcessHardening.disableDumping())
        XCTAssertFalse(ProcessHardening.isDumpable, "PR_SET_DUMPABLE is 0: no ptrace attach, no core")
    }

    func testLockWipesTheKeyBuffersItHeld() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-hygiene-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = try Vault.create(at: directory.appendingPathComponent("v.db").path,
                                     passphrase: SecureBuffer(copying: Array("pass".utf8)),
                                     kdf: .fresh(memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations))
        try await vault.add(Item(title: "x", created: .now()))
        let session = try await vault.unlockedSession()
        XCTAssertFalse(session.vaultKey.isZero)
        XCTAssertFalse(session.ring.hashingKey.isZero)
        XCTAssertFalse(session.keys.wrappingKey.isZero)
        await vault.lock()
        XCTAssertTrue(session.vaultKey.isZero, "the vault key is zeroed on lock")
        XCTAssertTrue(session.ring.hashingKey.isZero, "the hashing key is zeroed on lock")
        XCTAssertTrue(session.keys.wrappingKey.isZero, "the wrapping key is zeroed on lock")
        let isLocked = await vault.isLocked
        XCTAssertTrue(isLocked)
    }
}
