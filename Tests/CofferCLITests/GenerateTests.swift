import Foundation
import XCTest

/// `coffer generate`: needs no vault; lengths, character classes, words, and out-of-range values.
final class GenerateTests: XCTestCase {
    private static let symbols = Set("!#$%&*+-.:;=?@^_~")

    private func generate(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try CofferProcess.run(["generate"] + arguments, file: file, line: line)
        assertOK(result, file: file, line: line)
        XCTAssertEqual(result.err, "", file: file, line: line)
        XCTAssertTrue(result.out.hasSuffix("\n"), file: file, line: line)
        return result.line
    }

    func testDefaultIsTwentyCharactersOfEveryClass() throws {
        let password = try generate([])
        XCTAssertEqual(password.count, 20)
        XCTAssertTrue(password.contains(where: \.isLowercase), password)
        XCTAssertTrue(password.contains(where: \.isUppercase), password)
        XCTAssertTrue(password.contains(where: \.isNumber), password)
        XCTAssertTrue(password.contains(where: Self.symbols.contains), password)
        XCTAssertTrue(password.allSatisfy { $0.isASCII && !$0.isWhitespace }, password)
        XCTAssertNotEqual(try generate([]), password)
    }

    func testLengthAndCharacterClasses() throws {
        XCTAssertEqual(try generate(["--length", "4"]).count, 4)
        XCTAssertEqual(try generate(["--length", "500"]).count, 500)

        let noSymbols = try generate(["--length", "200", "--no-symbols"])
        XCTAssertEqual(noSymbols.count, 200)
        XCTAssertTrue(noSymbols.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }, noSymbols)

        let noDigits = try generate(["--length", "200", "--no-digits"])
        XCTAssertFalse(noDigits.contains(where: \.isNumber), noDigits)
        XCTAssertTrue(noDigits.contains(where: Self.symbols.contains), noDigits)

        let lowerOnly = try generate(["--length", "100", "--no-symbols", "--no-digits", "--no-uppercase"])
        XCTAssertTrue(lowerOnly.allSatisfy { $0.isASCII && $0.isLowercase }, lowerOnly)

        let digitsOnly = try generate(["--length", "100", "--no-symbols", "--no-uppercase", "--no-lowercase"])
        XCTAssertTrue(digitsOnly.allSatisfy { $0.isASCII && $0.isNumber }, digitsOnly)
    }

    func testWords() throws {
        let words = try generate(["--words", "5"]).split(separator: "-", omittingEmptySubsequences: false)
        XCTAssertEqual(words.count, 5)
        XCTAssertTrue(words.allSatisfy { $0.count >= 3 && $0.allSatisfy { $0.isASCII && $0.isLowercase } }, "\(words)")

        let spaced = try generate(["--words", "3", "--separator", " "]).split(separator: " ", omittingEmptySubsequences: false)
        XCTAssertEqual(spaced.count, 3)
        XCTAssertEqual(try generate(["--words", "40"]).split(separator: "-").count, 40)
    }

    func testOutOfRangeIsAUsageError() throws {
        let cases: [([String], String)] = [
            (["--length", "3"], "3"), (["--length", "501"], "501"), (["--length", "0"], "0"),
            (["--words", "2"], "2"), (["--words", "41"], "41"),
            (["--no-symbols", "--no-digits", "--no-uppercase", "--no-lowercase"], "class"),
            (["--length", "many"], "many"),
        ]
        for (arguments, mention) in cases {
            assertError(try CofferProcess.run(["generate"] + arguments), 2, mentions: [mention])
        }
    }
}
