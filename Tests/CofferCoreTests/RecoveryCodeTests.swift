import CofferCore
import XCTest

/// The recovery kit's code and file (`RecoveryKit.swift`): 130 random bits in 26 symbols and a
/// check symbol, read as forgivingly as an invitation code, and the payload only its key opens.
final class RecoveryCodeTests: XCTestCase {
    func testACodeIsTwentySevenSymbolsInGroupsOfFiveAndReadsBackHoweverItIsTyped() throws {
        let code = RecoveryCode.random()
        XCTAssertEqual(code.symbols.count, 27)
        XCTAssertEqual(code.description.split(separator: "-").map(\.count), [5, 5, 5, 5, 5, 2])
        XCTAssertEqual(try RecoveryCode(parsing: code.description.lowercased()), code)
        XCTAssertEqual(try RecoveryCode(parsing: code.symbols.map { String($0) }.joined(separator: " ")), code)
        XCTAssertNotEqual(RecoveryCode.random(), code)
    }

    func testEveryMistypedSymbolIsCaught() throws {
        let code = RecoveryCode.random()
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var symbols = Array(code.symbols)
        for position in symbols.indices {
            let original = symbols[position]
            symbols[position] = alphabet[(alphabet.firstIndex(of: original)! + 7) % 32]
            XCTAssertThrowsError(try RecoveryCode(parsing: String(symbols)), "position \(position)") { error in
                XCTAssertTrue("\(error)".contains("typo"), "\(error)")
            }
            symbols[position] = original
        }
        XCTAssertThrowsError(try RecoveryCode(parsing: String(code.symbols.dropLast()))) { XCTAssertTrue("\($0)".contains("27")) }
        XCTAssertThrowsError(try RecoveryCode(parsing: "U" + code.symbols.dropFirst())) { XCTAssertTrue("\($0)".contains("U")) }
    }

    func testAKitFileReadsBackAndAPayloadOpensOnlyWithItsCode() throws {
        let kit = RecoveryKit(server: try XCTUnwrap(URL(string: "https://kinto.example/v1")), code: RecoveryCode.random())
        let read = try RecoveryKit(parsing: kit.text)
        XCTAssertEqual(read.code, kit.code)
        XCTAssertEqual(read.server, kit.server)
        XCTAssertThrowsError(try RecoveryKit(parsing: "code: \(kit.code)"))
        XCTAssertThrowsError(try RecoveryKit(parsing: "server: file:///etc/passwd\ncode: \(kit.code)"))

        let keys = try RecoveryKeys(code: kit.code)
        XCTAssertTrue(keys.accountName.hasPrefix("rk-"))
        let vaultKey = SecureBuffer.random(count: 32)
        let sealed = try keys.seal(RecoveryPayload(server: "https://kinto.example/v1", user: "ann", password: "secret", vaultKey: vaultKey))
        let opened = try keys.open(sealed)
        XCTAssertEqual([opened.server, opened.user, opened.password], ["https://kinto.example/v1", "ann", "secret"])
        XCTAssertTrue(opened.vaultKey.isEqual(to: vaultKey))
        let other = try RecoveryKeys(code: RecoveryCode.random())
        XCTAssertNotEqual(other.accountName, keys.accountName)
        XCTAssertThrowsError(try other.open(sealed))
        XCTAssertThrowsError(try keys.open(String(sealed.dropLast(4)) + "AAAA"))
    }
}
