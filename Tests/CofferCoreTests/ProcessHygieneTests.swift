@testable import CofferCore
import Foundation
import XCTest

/// The process protections of DESIGN §2, observed from inside.
final class ProcessHygieneTests: XCTestCase {
    func testHardeningTurnsOffDumpsAndCoreFiles() throws {
        XCTAssertTrue(ProcessHardening.apply())
        XCTAssertFalse(ProcessHardening.isDumpable, "PR_SET_DUMPABLE is 0: no ptrace attach, no core")
        var limit = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_CORE.rawValue), &limit), 0)
        XCTAssertEqual(limit.rlim_cur, 0)
        XCTAssertEqual(limit.rlim_max, 0)
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
