import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// A shared vault's name in the person's `shares` record is sealed under their passphrase and
/// padded to one length (issue 41, finding 6).
final class SealedShareNameTests: XCTestCase {
    private let vaultID = SharedVaultID.random()

    private func keys(_ passphrase: String) throws -> PassphraseKeys {
        try PassphraseKeys(passphrase: Fixture.passphrase(passphrase), parameters: Fixture.fastKDF())
    }

    func testANameOpensUnderItsKeysOnlyAndEveryNameIsOneLength() throws {
        let keys = try keys("pw")
        let short = try SealedShareName.seal("a", under: keys, vaultID: vaultID)
        let long = try SealedShareName.seal(String(repeating: "x", count: SharedVaultName.limit), under: keys, vaultID: vaultID)
        XCTAssertEqual(Data(base64Encoded: short)?.count, Data(base64Encoded: long)?.count)
        XCTAssertEqual(Data(base64Encoded: short)?.count, SharedVaultName.limit + Envelope.overhead)
        XCTAssertEqual(SealedShareName.open(short, under: keys, vaultID: vaultID), "a")
        XCTAssertEqual(SealedShareName.open(long, under: keys, vaultID: vaultID), String(repeating: "x", count: SharedVaultName.limit))
        let home = try SealedShareName.seal("home", under: keys, vaultID: vaultID)
        XCTAssertFalse(home.contains("home"))
        XCTAssertNil(SealedShareName.open(home, under: try self.keys("other"), vaultID: vaultID), "another passphrase")
        XCTAssertNil(SealedShareName.open(home, under: keys, vaultID: SharedVaultID.random()), "another vault's record")
        XCTAssertNil(SealedShareName.open("not base64!", under: keys, vaultID: vaultID))
    }

    /// The padded plaintext: exactly 64 bytes, a valid name, NULs after it and nothing else.
    func testMalformedPaddingIsRefused() {
        func padded(_ bytes: [UInt8]) -> Data { Data(bytes + [UInt8](repeating: 0, count: max(0, SharedVaultName.limit - bytes.count))) }
        XCTAssertEqual(SealedShareName.name(padded: padded(Array("home".utf8))), "home")
        XCTAssertNil(SealedShareName.name(padded: Data("home".utf8)), "unpadded")
        XCTAssertNil(SealedShareName.name(padded: padded(Array("home".utf8)) + Data([0])), "too long")
        XCTAssertNil(SealedShareName.name(padded: padded([])), "empty")
        XCTAssertNil(SealedShareName.name(padded: padded(Array("ho".utf8) + [0] + Array("me".utf8))), "a byte after the NULs")
        XCTAssertNil(SealedShareName.name(padded: padded(Array("h/me".utf8))), "not a name")
        XCTAssertNil(SealedShareName.name(padded: padded([0xFF, 0xFE])), "not UTF-8")
    }
}
