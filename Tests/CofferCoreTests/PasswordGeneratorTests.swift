import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

final class PasswordGeneratorTests: XCTestCase {
    private typealias Classes = PasswordGenerator.CharacterClasses

    private let alphabets: [(Classes, Set<Character>)] = [
        (.lowercase, Set("abcdefghijkmnopqrstuvwxyz")),
        (.uppercase, Set("ABCDEFGHJKLMNPQRSTUVWXYZ")),
        (.digits, Set("23456789")),
        (.symbols, Set("!#$%&*+-.:;=?@^_~")),
    ]

    func testLengths() throws {
        for length in [4, 5, 20, 64, 500] {
            XCTAssertEqual(try PasswordGenerator.characters(length: length).count, length)
        }
        XCTAssertEqual(try PasswordGenerator.characters().count, 20, "default length")
    }

    func testLengthOutOfRange() {
        for length in [-1, 0, 3, 501, 10_000] {
            XCTAssertEqual(thrownError { try PasswordGenerator.characters(length: length) } as? PasswordGenerator.Problem,
                           .lengthOutOfRange(length))
        }
    }

    func testEveryChosenClassIsPresentAndNoOtherCharacter() throws {
        // All 15 non-empty combinations, at the shortest length that can hold four classes.
        for raw in 1...15 {
            let classes = Classes(rawValue: raw)
            let chosen = alphabets.filter { classes.contains($0.0) }
            let allowed = chosen.reduce(into: Set<Character>()) { $0.formUnion($1.1) }
            for _ in 0..<40 {
                let password = try PasswordGenerator.characters(length: 4, classes: classes)
                XCTAssertTrue(password.allSatisfy(allowed.contains), "\(password) for classes \(raw)")
                for (_, alphabet) in chosen {
                    XCTAssertTrue(password.contains(where: alphabet.contains), "\(password) misses a class of \(raw)")
                }
            }
        }
    }

    func testLookAlikesAreLeftOut() throws {
        let sample = try (0..<50).map { _ in try PasswordGenerator.characters(length: 100) }.joined()
        XCTAssertFalse(sample.contains { "0O1lI".contains($0) })
    }

    func testNoClassesIsAnError() {
        XCTAssertEqual(thrownError { try PasswordGenerator.characters(length: 10, classes: []) } as? PasswordGenerator.Problem,
                       .noClasses)
    }

    func testPasswordsDiffer() throws {
        let passwords = try (0..<200).map { _ in try PasswordGenerator.characters(length: 16) }
        XCTAssertEqual(Set(passwords).count, 200)
    }

    func testEveryCharacterOfThePoolTurnsUp() throws {
        // 20,000 draws from 74 characters: a character that never appears means a biased or truncated pool.
        let sample = try (0..<200).map { _ in try PasswordGenerator.characters(length: 100) }.joined()
        let pool = alphabets.reduce(into: Set<Character>()) { $0.formUnion($1.1) }
        XCTAssertEqual(Set(sample), pool)
    }

    func testWordCounts() throws {
        let words = Set(Wordlist.words.map(String.init))
        for count in [3, 6, 40] {
            let phrase = try PasswordGenerator.words(count: count)
            let parts = phrase.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(parts.count, count, phrase)
            XCTAssertTrue(parts.allSatisfy(words.contains), phrase)
        }
        let spaced = try PasswordGenerator.words(count: 5, separator: " ")
        XCTAssertEqual(spaced.split(separator: " ").count, 5)
        XCTAssertEqual(try PasswordGenerator.words().split(separator: "-").count, 6, "default count")
    }

    func testWordsOutOfRange() {
        for count in [0, 2, 41] {
            XCTAssertEqual(thrownError { try PasswordGenerator.words(count: count) } as? PasswordGenerator.Problem,
                           .wordsOutOfRange(count))
        }
    }

    func testWordlistHas2048UniqueWords() {
        XCTAssertEqual(Wordlist.words.count, 2048)
        XCTAssertEqual(Set(Wordlist.words).count, 2048)
        XCTAssertEqual(Set(Wordlist.words.map { $0.prefix(4) }).count, 2048, "unique in the first four letters")
        XCTAssertTrue(Wordlist.words.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("a"..."z").contains($0) } })
        XCTAssertEqual(Wordlist.words.first, "abandon")
        XCTAssertEqual(Wordlist.words.last, "zoo")
    }

    func testEntropyBits() {
        XCTAssertEqual(PasswordGenerator.entropyBits(length: 20, classes: .all), 20 * log2(74), accuracy: 1e-9)
        XCTAssertEqual(PasswordGenerator.entropyBits(length: 10, classes: .digits), 10 * log2(8), accuracy: 1e-9)
        XCTAssertEqual(PasswordGenerator.entropyBits(length: 10, classes: []), 0)
    }

    func testProblemsDescribeTheRange() {
        XCTAssertTrue(PasswordGenerator.Problem.lengthOutOfRange(3).description.contains("4 to 500"))
        XCTAssertTrue(PasswordGenerator.Problem.wordsOutOfRange(2).description.contains("3 to 40"))
    }
}
