import XCTest
@testable import CofferCore

/// Ratings from zxcvbn (Debian's zxcvbn-c): what people actually choose rates weak, random draws
/// rate strong. Bits measured on this machine are in the comments.
final class PassphraseStrengthTests: XCTestCase {
    func testCommonPasswordsRateWeak() {
        // password1234 ≈ 3 bits, qwerty123456 ≈ 4, iloveyou2024 ≈ 14, hunter2 ≈ 10, letmein ≈ 3.
        for password in ["password1234", "qwerty123456", "iloveyou2024", "hunter2", "letmein", "Password1", "summer2019"] {
            let estimate = PassphraseStrength.estimate(password)
            XCTAssertLessThan(estimate.bits, PassphraseStrength.weakBelowBits, password)
            XCTAssertLessThanOrEqual(estimate.rating, .weak, password)
        }
    }

    func testDictionaryBasedPassphrasesAreNotRatedStrong() {
        // A character-pool formula called "tiger lamp orbit 42" very strong (116 bits); zxcvbn ≈ 68.
        for passphrase in ["tiger lamp orbit 42", "Tr0ub4dor&3", "iloveyou2024", "qwertyuiop123"] {
            XCTAssertLessThan(PassphraseStrength.estimate(passphrase).rating, .strong, passphrase)
        }
    }

    func testRandomPasswordsAndSixWordPassphrasesRateStrong() throws {
        // Over 300 draws each on this machine the lowest were ≈ 92 bits for both.
        for _ in 0..<50 {
            let password = try PasswordGenerator.characters(length: 20, classes: .all)
            XCTAssertGreaterThanOrEqual(PassphraseStrength.estimate(password).rating, .strong, password)
            let words = try PasswordGenerator.words(count: 6)
            XCTAssertGreaterThanOrEqual(PassphraseStrength.estimate(words).rating, .strong, words)
        }
    }

    func testPatternsAreNamedInTheFeedback() {
        XCTAssertEqual(PassphraseStrength.estimate("password").weaknesses, [.commonWord])
        XCTAssertTrue(PassphraseStrength.estimate("zxcvfdsaqwer").weaknesses.contains(.keyboardPattern))
        XCTAssertTrue(PassphraseStrength.estimate("abcdefghijk").weaknesses.contains(.sequence))
        XCTAssertTrue(PassphraseStrength.estimate("p4ssw0rd").weaknesses.contains(.substitution))
        XCTAssertTrue(PassphraseStrength.estimate("summer2019").weaknesses.contains(.date))
        XCTAssertTrue(PassphraseStrength.estimate(String(repeating: "z", count: 30)).weaknesses.contains(.repetition))
        let feedback = PassphraseStrength.estimate("password1234").feedback
        XCTAssertEqual(feedback?.hasPrefix("Contains common words or names"), true, feedback ?? "nil")
        XCTAssertFalse(feedback?.contains("password") ?? true, "advice never repeats the passphrase")
    }

    func testStrongPassphrasesGetNoFeedback() throws {
        XCTAssertNil(PassphraseStrength.estimate(try PasswordGenerator.words(count: 6)).feedback)
    }

    func testThresholdsOfTheDocumentedScale() {
        let cases: [(Int, PassphraseStrength)] = [
            (0, .veryWeak), (29, .veryWeak), (30, .weak), (49, .weak), (50, .fair), (69, .fair),
            (70, .strong), (89, .strong), (90, .veryStrong), (500, .veryStrong),
        ]
        for (bits, rating) in cases { XCTAssertEqual(PassphraseStrength.rating(bits: bits), rating, "\(bits) bits") }
        XCTAssertEqual(PassphraseStrength.weakBelowBits, 50)
    }

    func testEmptyPassphraseHasNoBits() {
        XCTAssertEqual(PassphraseStrength.estimate("").bits, 0)
        XCTAssertEqual(PassphraseStrength.estimate("").rating, .veryWeak)
    }

    func testRatingsReadAsWordsInOrder() {
        XCTAssertEqual(PassphraseStrength.allCases.map(\.rawValue), ["very weak", "weak", "fair", "strong", "very strong"])
        XCTAssertEqual(PassphraseStrength.allCases, PassphraseStrength.allCases.sorted())
    }
}
