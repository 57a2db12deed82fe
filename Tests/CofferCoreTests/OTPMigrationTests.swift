@testable import CofferCore
import CofferFuzzChecks
import CofferTestSupport
import Foundation
import XCTest

/// Google Authenticator's `otpauth-migration://` export: the protocol buffer reader, the accounts,
/// their drafts, and malformed payloads refused (through the fuzz check too), never crashing.
final class OTPMigrationTests: XCTestCase {
    /// The seed of `FuzzForeignImport` (selector 7): two TOTP accounts and one HOTP.
    private func seedLink() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/fuzz/FuzzForeignImport/otpauth-migration.txt")
        let data = try Data(contentsOf: url)
        XCTAssertEqual(FuzzChecks.foreignImportFormats[Int(try XCTUnwrap(data.first))], "otpauth-migration")
        return String(decoding: data.dropFirst(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testReadsTheAccountsOfALink() throws {
        let accounts = try OTPMigration.accounts(inLink: try seedLink())
        XCTAssertEqual(accounts.count, 3)
        XCTAssertEqual(accounts[0].secret, Array("Hello!".utf8) + [0xDE, 0xAD, 0xBE, 0xEF])
        XCTAssertEqual([accounts[0].title, accounts[0].username], ["Example", "alice@example.com"])
        XCTAssertEqual([accounts[1].title, accounts[1].username], ["GitHub", "bob"])
        XCTAssertEqual(accounts[1].algorithm, .sha256)
        XCTAssertEqual(accounts[1].digits, 8)
        XCTAssertTrue(accounts[2].isCounterBased)
        // Each URI reads back as the same generator.
        let first = try TOTP(parsing: try XCTUnwrap(accounts[0].uri))
        XCTAssertEqual(first, TOTP(secret: accounts[0].secret))
        let second = try TOTP(parsing: try XCTUnwrap(accounts[1].uri))
        XCTAssertEqual(second, TOTP(secret: Array("12345678901234567890".utf8), algorithm: .sha256, digits: 8))
        XCTAssertNil(accounts[2].uri)
        let (drafts, skipped) = OTPMigration.drafts(accounts)
        XCTAssertEqual(drafts.map(\.title), ["Example", "GitHub"])
        XCTAssertEqual(skipped, ["Bank"])
        let items = try ImportDraft.items(drafts, file: "f", now: FuzzChecks.importNow)
        XCTAssertEqual(try items.map { try $0.totpGenerator() }, [first, second])
    }

    /// RFC 6238's SHA-256 test vector (59 s → 46119246) through a payload's account.
    func testCodesOfAnImportedAccountFollowRFC6238() throws {
        let secret = Array("12345678901234567890123456789012".utf8)
        let payload = field(1, account(secret: secret, name: "rfc", issuer: "", algorithm: 2, digits: 2, type: 2))
        let accounts = try OTPMigration.accounts(inPayload: payload)
        XCTAssertEqual(try TOTP(parsing: try XCTUnwrap(accounts.first?.uri)).code(at: Date(timeIntervalSince1970: 59)), "46119246")
    }

    func testSeveralLinksOneALineAndUnknownFieldsSkipped() throws {
        let one = field(1, account(secret: [1, 2, 3], name: "a", issuer: "A", algorithm: 1, digits: 1, type: 2) + varint(99 << 3) + [7])
        let two = field(1, account(secret: [4, 5, 6], name: "b", issuer: "", algorithm: 0, digits: 0, type: 0))
        let text = "# exported\n\(link(one))\n\n\(link(two + varint(2 << 3) + [1]))\n"
        XCTAssertEqual(try OTPMigration.accounts(inLinks: text).map(\.title), ["A", "b"])
    }

    func testMalformedPayloadsAreRefusedNamingWhy() throws {
        let good = account(secret: [1, 2, 3], name: "a", issuer: "", algorithm: 1, digits: 1, type: 2)
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "holds no account"),
            ("a length past the end", [0x0A, 0x40, 0x01], "a length past the end"),
            ("a number cut short", [0x0A, 0x80], "a number cut short"),
            ("an 11-byte varint", [0x10] + [UInt8](repeating: 0xFF, count: 10) + [0x01], "over 64 bits"),
            ("a fixed64 field", [0x09] + [UInt8](repeating: 0, count: 8), "wire type 1"),
            ("field number 0", [0x02, 0x00], "field number"),
            ("no secret", field(1, field(2, Array("a".utf8))), "has no secret"),
            ("a 2 KB secret", field(1, field(1, [UInt8](repeating: 1, count: 2_048))), "secret of 2048 bytes"),
            ("a name not UTF-8", field(1, field(1, [1]) + field(2, [0xFF])), "name is not text"),
            ("algorithm 9", field(1, field(1, [1]) + varint(4 << 3) + [9]), "unknown algorithm"),
            ("digits 3", field(1, field(1, [1]) + varint(5 << 3) + [3]), "unknown number of digits"),
            ("a bad account after a good one", field(1, good) + field(1, [0x0A, 0x05]), "a length past the end"),
        ]
        for (name, payload, mention) in cases {
            XCTAssertThrowsError(try OTPMigration.accounts(inPayload: payload), name) { error in
                XCTAssertTrue("\(error)".contains(mention), "\(name): \(error)")
            }
            XCTAssertNoThrow(try FuzzChecks.foreignImport(Data([8] + payload)), name)
            XCTAssertNoThrow(try FuzzChecks.foreignImport(Data([7]) + Data(link(payload).utf8)), name)
        }
        let tooMany = (0...OTPMigration.accountLimit).flatMap { _ in field(1, good) }
        XCTAssertThrowsError(try OTPMigration.accounts(inPayload: tooMany)) { XCTAssertTrue("\($0)".contains("more than 1000")) }
    }

    func testLinksThatAreNotMigrationLinksAreRefused() throws {
        let cases: [(String, String)] = [
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP", "not an otpauth-migration://offline link"),
            ("otpauth-migration://online?data=CgA", "not an otpauth-migration://offline link"),
            ("otpauth-migration://offline?foo=1", "no data= parameter"),
            ("otpauth-migration://offline?data=%%%", "not base64"),
            ("otpauth-migration://offline?data=!!!!", "not base64"),
            ("otpauth-migration://offline?data=" + String(repeating: "A", count: 70_000), "longer than 64 KiB"),
        ]
        for (text, mention) in cases {
            XCTAssertThrowsError(try OTPMigration.accounts(inLink: text), text) { XCTAssertTrue("\($0)".contains(mention), "\($0)") }
        }
        XCTAssertThrowsError(try OTPMigration.drafts(Data("\n# nothing\n".utf8), file: "f")) {
            XCTAssertEqual("\($0)", "Cannot import: f: it holds no otpauth-migration:// link; nothing was imported.")
        }
    }

    /// Two accounts with one issuer and name (two GitHub logins) are two items; the same account
    /// twice is one.
    func testAccountsWithOneNameButTwoSecretsAreNotDuplicates() throws {
        func entry(_ secret: [UInt8]) -> [UInt8] { field(1, account(secret: secret, name: "me", issuer: "GitHub", algorithm: 1, digits: 1, type: 2)) }
        let accounts = try OTPMigration.accounts(inPayload: entry([1, 2, 3]) + entry([4, 5, 6]) + entry([1, 2, 3]))
        let items = try ImportDraft.items(OTPMigration.drafts(accounts).drafts, file: "f", now: FuzzChecks.importNow)
        let duplicates = ImportDuplicates(items, existing: [])
        XCTAssertEqual(duplicates.kept.map(\.entry.totp), [items[0].entry.totp, items[1].entry.totp])
        XCTAssertEqual(duplicates.skipped.map(\.reason), [.inFile])
    }

    func testNamesCannotChangeTheSecretOfTheURI() throws {
        let payload = field(1, account(secret: [1, 2, 3, 4, 5], name: "n#?x&secret=AAAAAAAA", issuer: "I&secret=AAAAAAAA é",
                                       algorithm: 3, digits: 1, type: 2))
        let account = try XCTUnwrap(try OTPMigration.accounts(inPayload: payload).first)
        let uri = try XCTUnwrap(account.uri)
        XCTAssertEqual(try TOTP(parsing: uri), TOTP(secret: [1, 2, 3, 4, 5], algorithm: .sha512))
        let query = try XCTUnwrap(URLComponents(string: uri)?.queryItems)
        XCTAssertEqual(query.filter { $0.name == "secret" }.count, 1)
        XCTAssertEqual(query.first { $0.name == "issuer" }?.value, "I&secret=AAAAAAAA é")
    }

    func testReadsTheLinkFromAQrencodeImage() throws {
        let png = try QRImages.png(try seedLink())
        let (drafts, skipped) = try OTPMigration.drafts(png, file: "export.png")
        XCTAssertEqual(drafts.map(\.username), ["alice@example.com", "bob"])
        XCTAssertEqual(skipped, ["Bank"])
        XCTAssertNoThrow(try FuzzChecks.foreignImport(Data([7]) + png))
        XCTAssertNoThrow(try FuzzChecks.foreignImport(Data([7]) + png.prefix(100)))
    }

    func testProtobufReaderReadsVarintsAtTheirLimits() throws {
        var reader = ProtobufReader(([0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x01] + [0x12, 0x02, 0x61, 0x62])[...])
        XCTAssertEqual(try reader.next(), .varint(number: 1, value: UInt64.max))
        XCTAssertEqual(try reader.next(), .bytes(number: 2, value: [0x61, 0x62][...]))
        XCTAssertNil(try reader.next())
    }

    // MARK: A payload by hand

    private func varint(_ value: UInt64) -> [UInt8] {
        var value = value, bytes: [UInt8] = []
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            bytes.append(value == 0 ? low : low | 0x80)
        } while value != 0
        return bytes
    }

    private func field(_ number: UInt64, _ bytes: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes }

    private func account(secret: [UInt8], name: String, issuer: String, algorithm: UInt64, digits: UInt64, type: UInt64) -> [UInt8] {
        field(1, secret) + field(2, Array(name.utf8)) + field(3, Array(issuer.utf8)) + varint(4 << 3) + varint(algorithm)
            + varint(5 << 3) + varint(digits) + varint(6 << 3) + varint(type)
    }

    private func link(_ payload: [UInt8]) -> String {
        "otpauth-migration://offline?data=" + Data(payload).base64EncodedString()
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }
}
