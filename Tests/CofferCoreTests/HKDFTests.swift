import Foundation
import XCTest
@testable import CofferCore

/// RFC 5869 Appendix A, the SHA-256 test cases (1–3).
final class HKDFTests: XCTestCase {
    private func derive(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> String {
        hexString(HKDFSHA256.derive(inputKey: SecureBuffer(copying: ikm), salt: Data(salt), info: Data(info),
                                    length: length).bytes)
    }

    func testCase1BasicSHA256() {
        XCTAssertEqual(
            derive(ikm: Array(repeating: 0x0b, count: 22), salt: Array(0x00...0x0c), info: Array(0xf0...0xf9), length: 42),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    func testCase2LongerInputsAndOutput() {
        XCTAssertEqual(
            derive(ikm: Array(0x00...0x4f), salt: Array(0x60...0xaf), info: Array(0xb0...0xff), length: 82),
            "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                + "cc30c58179ec3e87c14c01d5c1f3434f1d87")
    }

    func testCase3EmptySaltAndInfo() {
        XCTAssertEqual(
            derive(ikm: Array(repeating: 0x0b, count: 22), salt: [], info: [], length: 42),
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
        // The String-info overload with its default salt is the same derivation.
        XCTAssertEqual(
            hexString(HKDFSHA256.derive(inputKey: SecureBuffer(copying: Array(repeating: UInt8(0x0b), count: 22)),
                                        info: "", length: 42).bytes),
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    func testDifferentInfoGivesIndependentKeys() {
        let root = SecureBuffer(copying: Array(repeating: UInt8(7), count: 32))
        let wrapping = HKDFSHA256.derive(inputKey: root, info: "coffer/v1/keystore-wrapping", length: 32)
        let verifier = HKDFSHA256.derive(inputKey: root, info: "coffer/v1/passphrase-verifier", length: 32)
        XCTAssertEqual(wrapping.count, 32)
        XCTAssertFalse(wrapping.isEqual(to: verifier))
    }
}
