import Foundation
import XCTest
@testable import CofferCore

/// A member's secrets of one shared vault (`meta.share_member`, architecture §17), sealed under
/// their passphrase: what opens them, and what is refused before or after the derivation.
///
/// Argon2id at its floor costs ~0.1–0.3 s a derivation: the keys are derived once for the class,
/// and each `open` that gets past the KDF check derives once more.
final class MemberSecretsTests: XCTestCase {
    private static let passphrase = Fixture.passphrase("correct horse battery staple")
    private static let kdf = KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: 3)
    private static let keys = Result { try PassphraseKeys(passphrase: passphrase, parameters: kdf) }

    private let vault = SharedVaultID.random()
    /// An epoch whose eight bytes all differ, so a byte out of order shows.
    private let secrets = MemberSecrets(epoch: 0x0102_0304_0506_0708, epochKey: .random(count: 32), person: PersonKeys())

    private func sealed() throws -> String {
        try secrets.sealed(under: try Self.keys.get(), kdf: Self.kdf, vaultID: vault)
    }

    private func open(_ json: String, passphrase: SecureBuffer = MemberSecretsTests.passphrase,
                      vaultID: SharedVaultID? = nil) throws -> MemberSecrets {
        try MemberSecrets.open(json, passphrase: passphrase, vaultID: vaultID ?? vault)
    }

    /// The stored JSON with `change` made to its object.
    private func edited(_ json: String, _ change: (inout [String: Any]) -> Void) throws -> String {
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        change(&object)
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// The stored JSON's sealed box.
    private func sealedBox(_ json: String) throws -> Data {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(object["sealed"] as? String)))
    }

    private func assertTampered(_ json: String, _ message: String, line: UInt = #line) {
        XCTAssertThrowsError(try open(json), message, line: line) {
            XCTAssertTrue(isTampered($0), "\(message): \($0)", line: line)
        }
    }

    func testSecretsOpenAsTheyWereSealed() throws {
        let json = try sealed()
        let opened = try open(json)
        XCTAssertEqual(opened.epoch, secrets.epoch)
        XCTAssertEqual(opened.epochKey.bytes, secrets.epochKey.bytes)
        XCTAssertEqual(opened.person.id, secrets.person.id)
        XCTAssertEqual(opened.person.signingPublicKey, secrets.person.signingPublicKey)
        XCTAssertEqual(opened.person.sealingPublicKey, secrets.person.sealingPublicKey)
        XCTAssertEqual(opened.person.privateKeys.signing.bytes, secrets.person.privateKeys.signing.bytes)
        XCTAssertEqual(opened.person.privateKeys.sealing.bytes, secrets.person.privateKeys.sealing.bytes)

        // In the clear: the parameters (a new device needs them) and the verifier, nothing secret.
        let stored = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(Set(stored.keys), ["kdf", "verifier", "sealed"])
        XCTAssertEqual(try JSONDecoder().decode(KDFParameters.self, from: JSONSerialization.data(withJSONObject: stored["kdf"] as Any)),
                       Self.kdf)
        for secret in [secrets.epochKey, secrets.person.privateKeys.signing, secrets.person.privateKeys.sealing] {
            XCTAssertFalse(json.contains(Data(secret.bytes).base64EncodedString()))
        }
    }

    func testAWrongPassphraseIsToldApart() throws {
        XCTAssertThrowsError(try open(try sealed(), passphrase: Fixture.passphrase("correct horse battery stapler"))) {
            XCTAssertEqual($0 as? CoreError, .wrongPassphrase)
        }
    }

    func testSecretsOfAnotherVaultAreTampered() throws {
        XCTAssertThrowsError(try open(try sealed(), vaultID: SharedVaultID.random())) {
            XCTAssertTrue(isTampered($0), "\($0)")
        }
    }

    /// Parameters below the floor are refused before any derivation: an attacker who rewrote
    /// them would get a cheap guess of the passphrase's verifier.
    func testParametersBelowTheFloorAreADowngrade() throws {
        let json = try sealed()
        let rows: [(String, memory: Int, iterations: Int)] = [
            ("half the memory", KDFParameters.minimumMemory / 2, 3),
            ("two iterations", KDFParameters.minimumMemory, 2),
            ("nothing", 0, 0),
        ]
        for (name, memory, iterations) in rows {
            let downgraded = try edited(json) { object in
                var kdf = object["kdf"] as? [String: Any] ?? [:]
                kdf["memory"] = memory
                kdf["iterations"] = iterations
                object["kdf"] = kdf
            }
            XCTAssertThrowsError(try open(downgraded), name) {
                XCTAssertEqual($0 as? CoreError, .kdfDowngrade(memoryBytes: memory, iterations: iterations), name)
            }
        }
        let huge = try edited(json) { object in
            var kdf = object["kdf"] as? [String: Any] ?? [:]
            kdf["memory"] = 64 * 1_073_741_824
            object["kdf"] = kdf
        }
        assertTampered(huge, "implausibly large parameters")
    }

    func testMalformedSecretsAreTampered() throws {
        let json = try sealed()
        let box = try sealedBox(json)
        var flipped = box
        flipped[flipped.count / 2] ^= 0x01
        let rows: [(String, String)] = [
            ("empty", ""),
            ("not JSON", "share_member"),
            ("an array", "[]"),
            ("no members", "{}"),
            ("without its box", try edited(json) { $0["sealed"] = nil }),
            ("without its parameters", try edited(json) { $0["kdf"] = nil }),
            ("a box that is a number", try edited(json) { $0["sealed"] = 7 }),
            ("a box that is not base64", try edited(json) { $0["sealed"] = "*not base64*" }),
            ("an empty box", try edited(json) { $0["sealed"] = "" }),
            ("a truncated box", try edited(json) { $0["sealed"] = box.dropLast().base64EncodedString() }),
            ("a flipped byte", try edited(json) { $0["sealed"] = flipped.base64EncodedString() }),
        ]
        for (name, text) in rows { assertTampered(text, name) }
    }

    /// A box that opens but holds something other than version 1's 105 bytes (what a later
    /// version, or a bug, would write) is refused, not read as keys.
    func testAnOpenedBoxOfAnotherShapeIsTampered() throws {
        let keys = try Self.keys.get()
        let json = try sealed()
        let good = try Envelope.open(try sealedBox(json), key: keys.wrappingKey, collection: "member", id: vault.bucket)
        XCTAssertEqual(good.count, 105)
        XCTAssertEqual(good.first, 1)
        var otherVersion = good
        otherVersion[0] = 2
        for (name, plaintext) in [("version 2", otherVersion), ("a byte more", good + Data([0]))] {
            let box = try Envelope.seal(plaintext, key: keys.wrappingKey, collection: "member", id: vault.bucket)
            assertTampered(try edited(json) { $0["sealed"] = box.base64EncodedString() }, name)
        }
    }
}
