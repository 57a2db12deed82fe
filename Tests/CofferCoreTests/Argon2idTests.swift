import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// Argon2id through libsodium against vectors printed by the Debian `argon2` CLI (libargon2), v=19.
///
/// The well-known vector (password "password", salt "somesalt", t=2, m=64 MiB, p=1 →
/// 09316115…13cf7, confirmed with the CLI) uses an 8-byte salt, which libsodium and
/// `Argon2id.derive` refuse (16 bytes only); the vectors below use 16-byte salts:
/// `echo -n password | argon2 somesaltsomesalt -id -t 2 -m 16 -p 1 -l 32 -r`.
final class Argon2idTests: XCTestCase {
    private func derive(_ password: String, salt: String, memory: Int, iterations: Int, length: Int) throws -> String {
        hexString(try Argon2id.derive(passphrase: Fixture.passphrase(password), salt: Data(salt.utf8), memory: memory,
                                      iterations: iterations, length: length).bytes)
    }

    func testVectorT2M64MiB() throws {
        XCTAssertEqual(try derive("password", salt: "somesaltsomesalt", memory: 64 * 1_048_576, iterations: 2, length: 32),
                       "fc33b78139231d34b71626bd6245c1d72efa190ad605c3d8166a72adcedfa2c2")
    }

    func testVectorT3M64MiBWith64ByteOutput() throws {
        XCTAssertEqual(
            try derive("correct horse battery staple", salt: "0123456789abcdef", memory: 64 * 1_048_576, iterations: 3,
                       length: 64),
            "428cb4b6c02b45095d0302fad4ea3ef94865c50a2a29196330ed9e6d7bf7c5c6"
                + "2a7c7a4f2be2c6fc12ea114ceb290c2378e66717f407b1ccd59d939091413741")
    }

    func testVectorWithNonASCIIPasswordAndSmallMemory() throws {
        // argon2 … -t 1 -m 12 -l 16: 4 MiB, one pass (below the vault floor, which derive does not enforce).
        XCTAssertEqual(try derive("pässwörd", salt: "somesaltsomesalt", memory: 4 * 1_048_576, iterations: 1, length: 16),
                       "306c8e0c7b10e4c5702387fce8ba5d9a")
    }

    func testSaltOfTheWrongLengthIsRefused() {
        for salt in ["somesalt", "", "seventeen bytes!!"] {
            XCTAssertTrue(isTampered(thrownError {
                try Argon2id.derive(passphrase: Fixture.passphrase("password"), salt: Data(salt.utf8),
                                    memory: KDFParameters.minimumMemory, iterations: 3)
            }), "salt \(salt)")
        }
    }

    func testCalibrationNeverGoesBelowTheFloor() throws {
        let parameters = Argon2id.calibrate(target: 0.3)
        XCTAssertGreaterThanOrEqual(parameters.memory, KDFParameters.minimumMemory)
        XCTAssertGreaterThanOrEqual(parameters.iterations, KDFParameters.minimumIterations)
        XCTAssertEqual(parameters.algorithm, KDFParameters.argon2id)
        XCTAssertNoThrow(try parameters.checkStrength())
    }

    // MARK: KDFParameters

    func testFreshParametersHaveARandomSixteenByteSalt() throws {
        let first = Fixture.fastKDF(), second = Fixture.fastKDF()
        XCTAssertEqual(Data(base64Encoded: first.salt)?.count, 16)
        XCTAssertNotEqual(first.salt, second.salt)
        XCTAssertNoThrow(try first.checkStrength())
    }

    func testParametersBelowTheFloorAreADowngrade() {
        let salt = Fixture.fastKDF().salt
        let weakMemory = KDFParameters(memory: KDFParameters.minimumMemory - 1024, iterations: 3, salt: salt)
        XCTAssertEqual(thrownError { try weakMemory.checkStrength() } as? CoreError,
                       .kdfDowngrade(memoryBytes: KDFParameters.minimumMemory - 1024, iterations: 3))
        let weakIterations = KDFParameters(memory: KDFParameters.minimumMemory, iterations: 2, salt: salt)
        XCTAssertEqual(thrownError { try weakIterations.checkStrength() } as? CoreError,
                       .kdfDowngrade(memoryBytes: KDFParameters.minimumMemory, iterations: 2))
    }

    func testMalformedOrAbsurdParametersAreTampered() {
        let salt = Fixture.fastKDF().salt
        let cases = [
            KDFParameters(algorithm: "argon2i13", memory: KDFParameters.minimumMemory, iterations: 3, salt: salt),
            KDFParameters(memory: KDFParameters.minimumMemory, iterations: 3, salt: "not base64!"),
            KDFParameters(memory: KDFParameters.minimumMemory, iterations: 3, salt: Data(count: 8).base64EncodedString()),
            KDFParameters(memory: 8 * 1_073_741_824, iterations: 3, salt: salt),
            KDFParameters(memory: KDFParameters.minimumMemory, iterations: 1_000_000, salt: salt),
        ]
        for parameters in cases {
            XCTAssertTrue(isTampered(thrownError { try parameters.checkStrength() }), "\(parameters)")
        }
    }

    // MARK: PassphraseKeys

    func testPassphraseKeysAreDeterministicAndTellPassphrasesApart() throws {
        let kdf = Fixture.fastKDF()
        let first = try PassphraseKeys(passphrase: Fixture.passphrase("one"), parameters: kdf)
        let again = try PassphraseKeys(passphrase: Fixture.passphrase("one"), parameters: kdf)
        let other = try PassphraseKeys(passphrase: Fixture.passphrase("two"), parameters: kdf)
        XCTAssertTrue(first.wrappingKey.isEqual(to: again.wrappingKey))
        XCTAssertTrue(first.matches(verifier: again.verifier))
        XCTAssertFalse(first.matches(verifier: other.verifier))
        XCTAssertFalse(first.wrappingKey.isEqual(to: other.wrappingKey))
        XCTAssertFalse(first.matches(verifier: "garbage"))
        XCTAssertFalse(first.matches(verifier: ""))
    }
}
