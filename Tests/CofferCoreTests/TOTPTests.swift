import Foundation
import XCTest
@testable import CofferCore

/// RFC 6238 codes: the appendix B vectors, the parsing of what an item's `totp` field holds, and
/// the same secrets and times through Debian's `oathtool` (OathtoolComparisonTests).
final class TOTPTests: XCTestCase {
    static let sha1Seed = Array("12345678901234567890".utf8)
    static let sha256Seed = Array("12345678901234567890123456789012".utf8)
    static let sha512Seed = Array("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    /// RFC 6238 appendix B: time, then the 8-digit SHA-1, SHA-256 and SHA-512 codes.
    static let appendixB: [(TimeInterval, String, String, String)] = [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ]

    func testRFC6238AppendixBVectors() {
        for (time, sha1, sha256, sha512) in Self.appendixB {
            let now = Date(timeIntervalSince1970: time)
            XCTAssertEqual(TOTP(secret: Self.sha1Seed, algorithm: .sha1, digits: 8).code(at: now), sha1, "SHA-1 at \(time)")
            XCTAssertEqual(TOTP(secret: Self.sha256Seed, algorithm: .sha256, digits: 8).code(at: now), sha256, "SHA-256 at \(time)")
            XCTAssertEqual(TOTP(secret: Self.sha512Seed, algorithm: .sha512, digits: 8).code(at: now), sha512, "SHA-512 at \(time)")
        }
    }

    func testSixDigitCodesKeepLeadingZeros() {
        // 07081804 at 1111111109 with 8 digits; its last six are 081804.
        let totp = TOTP(secret: Self.sha1Seed, digits: 6)
        XCTAssertEqual(totp.code(at: Date(timeIntervalSince1970: 1_111_111_109)), "081804")
    }

    func testSecondsLeftCountsDownWithinThePeriod() {
        let totp = TOTP(secret: Self.sha1Seed, period: 30)
        XCTAssertEqual(totp.secondsLeft(at: Date(timeIntervalSince1970: 60)), 30)
        XCTAssertEqual(totp.secondsLeft(at: Date(timeIntervalSince1970: 61.9)), 29)
        XCTAssertEqual(totp.secondsLeft(at: Date(timeIntervalSince1970: 89.5)), 1)
        XCTAssertEqual(TOTP(secret: Self.sha1Seed, period: 60).secondsLeft(at: Date(timeIntervalSince1970: 90)), 30)
    }

    func testBase32RoundTripsAndForgivesCaseSpacesAndPadding() throws {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base32.encode(bytes)
            XCTAssertEqual(Base32.decode(text), bytes, "length \(length): \(text)")
            XCTAssertEqual(Base32.decode(text.lowercased()), bytes)
        }
        XCTAssertEqual(Base32.decode("MZXW6YTBOI======"), Array("foobar".utf8), "RFC 4648 test vector with padding")
        XCTAssertEqual(Base32.decode("jbsw y3dp ehpk 3pxp"), Base32.decode("JBSWY3DPEHPK3PXP"))
        XCTAssertNil(Base32.decode("JBSWY3DP1HPK3PXP"), "1 is not base32")
        XCTAssertNil(Base32.decode("JBSW=Y3DP"), "padding in the middle")
        XCTAssertNil(Base32.decode("A"), "one character holds no whole byte")
    }

    func testParsesBareSecretsAndOtpauthURIs() throws {
        XCTAssertEqual(try TOTP(parsing: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"), TOTP(secret: Self.sha1Seed))
        XCTAssertEqual(try TOTP(parsing: "  gezd gnbv gy3t qojq gezd gnbv gy3t qojq \n"), TOTP(secret: Self.sha1Seed))
        let uri = "otpauth://totp/ACME%20Co:john@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME%20Co"
            + "&algorithm=SHA256&digits=8&period=60"
        XCTAssertEqual(try TOTP(parsing: uri), TOTP(secret: Self.sha1Seed, algorithm: .sha256, digits: 8, period: 60))
        XCTAssertEqual(try TOTP(parsing: "OTPAUTH://TOTP/x?SECRET=GEZDGNBVGY3TQOJQ&Algorithm=sha512").algorithm, .sha512)
        XCTAssertEqual(try TOTP(parsing: "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ"),
                       TOTP(secret: Array("1234567890".utf8), algorithm: .sha1, digits: 6, period: 30), "defaults")
    }

    func testRefusesWhatYieldsNoCode() {
        let cases: [(String, TOTP.Problem)] = [
            ("not a secret!", .notBase32),
            ("", .empty),
            ("====", .empty),
            ("otpauth://hotp/x?secret=GEZDGNBVGY3TQOJQ&counter=1", .notTOTP("hotp")),
            ("otpauth://totp/x?issuer=Nobody", .missingSecret),
            ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&algorithm=MD5", .algorithm("MD5")),
            ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&digits=5", .digits("5")),
            ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&digits=9", .digits("9")),
            ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&digits=six", .digits("six")),
            ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&period=0", .period("0")),
            ("otpauth://totp/x?secret=0000", .notBase32),
        ]
        for (text, problem) in cases {
            XCTAssertThrowsError(try TOTP(parsing: text), text) { error in
                XCTAssertEqual(error as? TOTP.Problem, problem, text)
            }
        }
    }

    func testItemFieldsByName() throws {
        var item = Item(title: "GitHub", origins: ["github.com", "gist.github.com"], tags: ["dev", "work"],
                        entry: Entry(username: "octo", password: "pw", notes: "n", totp: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"),
                        created: Timestamp(milliseconds: 1_000))
        let now = Date(timeIntervalSince1970: 59)
        func value(_ name: String) throws -> String? { try XCTUnwrap(FieldSelector(name: name)).value(of: item, at: now) }
        XCTAssertEqual(try value("password"), "pw")
        XCTAssertEqual(try value("USERNAME"), "octo")
        XCTAssertEqual(try value("totp"), "287082", "the current code, not the secret")
        XCTAssertEqual(try value("origin"), "github.com")
        XCTAssertEqual(try value("origins"), "github.com\ngist.github.com")
        XCTAssertEqual(try value("tags"), "dev\nwork")
        XCTAssertEqual(try value("id"), item.id)
        XCTAssertEqual(try value("title"), "GitHub")
        XCTAssertNil(FieldSelector(name: "kind"))
        XCTAssertEqual(FieldSelector(name: "secret"), .other("secret"), "any other name is a kind's or a custom field")
        XCTAssertNil(try value("secret"), "a login has no field named secret")
        for name in FieldSelector.names { XCTAssertNotNil(FieldSelector(name: name), name) }
        item.entry.totp = nil
        item.origins = []
        XCTAssertNil(try value("totp"))
        XCTAssertNil(try value("origin"))
        item.entry.totp = "xyz!"
        XCTAssertThrowsError(try value("totp")) { XCTAssertEqual($0 as? CoreError, .invalidTOTP(.notBase32)) }
    }
}
