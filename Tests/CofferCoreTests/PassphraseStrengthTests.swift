import XCTest
@testable import CofferCore
import CofferTestSupport

final class PassphraseStrengthTests: XCTestCase {
    /// Weakest to strongest.
    private let order: [PassphraseStrength] = [.veryWeak, .weak, .fair, .strong, .veryStrong]

    private func rank(_ passphrase: String) -> Int {
        order.firstIndex(of: PassphraseStrength.estimate(passphrase).rating)!
    }

    func testRatingsRiseWithLengthAndVariety() {
        let ladder = ["", "abc", "abcdefg", "Tr0ub4dor&", "correct horse battery staple", "Corr3ct-H0rse-Battery-Staple-Zebra!9"]
        let ranks = ladder.map(rank)
        XCTAssertEqual(ranks, ranks.sorted(), "\(zip(ladder, ranks).map { "\($0)=\($1)" })")
        XCTAssertEqual(ranks.first, 0)
        XCTAssertEqual(ranks.last, order.count - 1)
    }

    func testEveryRatingIsReachable() {
        let examples = ["a", "abcdefg", "abcdefghijk", "Abcdefgh1234", "Abcdefgh1234!@#$%^&*xyz"]
        XCTAssertEqual(examples.map { PassphraseStrength.estimate($0).rating }, order)
    }

    func testBitsAreMonotoneInTheRating() {
        var random = SeededGenerator(seed: 99)
        let characters = Array("abcXYZ019!? é")
        var samples: [(bits: Int, rating: PassphraseStrength)] = []
        for _ in 0..<200 {
            let length = Int.random(in: 0...40, using: &random)
            samples.append(PassphraseStrength.estimate(String((0..<length).map { _ in characters.randomElement(using: &random)! })))
        }
        for a in samples {
            for b in samples where a.bits < b.bits {
                XCTAssertLessThanOrEqual(order.firstIndex(of: a.rating)!, order.firstIndex(of: b.rating)!)
            }
        }
    }

    func testRepetitionIsDiscounted() {
        let repeated = PassphraseStrength.estimate(String(repeating: "a", count: 30))
        let varied = PassphraseStrength.estimate("thequickbrownfoxjumpsoverlazyd")
        XCTAssertLessThan(repeated.bits, varied.bits)
        XCTAssertEqual(repeated.rating, .veryWeak)
    }

    func testEmptyPassphraseHasNoBits() {
        XCTAssertEqual(PassphraseStrength.estimate("").bits, 0)
        XCTAssertEqual(PassphraseStrength.estimate("").rating, .veryWeak)
    }

    func testRatingsReadAsWords() {
        XCTAssertEqual(order.map(\.rawValue), ["very weak", "weak", "fair", "strong", "very strong"])
    }
}
