import XCTest
@testable import CofferCore

/// `SearchTexts` finds the same rows whichever way it looks: one pass over the whole buffer for the
/// longest word, row by row for the others, or a plain search; cleared rows never match.
final class SearchTextsTests: XCTestCase {
    private static let alphabet = Array("abn".utf8)

    private static func field(_ random: inout SystemRandomNumberGenerator) -> [UInt8] {
        (0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
    }

    func testEveryWayFindsTheSameRows() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var texts = SearchTexts()
            var rows: [[[UInt8]]] = []
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                let fields = (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.field(&random) }
                rows.append(fields)
                texts.appendRow { bytes in
                    for field in fields { bytes.append(contentsOf: field + [0]) }
                }
            }
            var cleared = Set<Int>()
            for row in rows.indices where Bool.random(using: &random) && Bool.random(using: &random) {
                texts.clearRow(row)
                cleared.insert(row)
            }
            let words = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                (0..<Int.random(in: 1...4, using: &random)).map { _ in Self.alphabet.randomElement(using: &random)! }
            }
            let expected = rows.indices.filter { row in
                !cleared.contains(row) && words.allSatisfy { word in rows[row].contains { Self.plainSearch(word, in: $0) != nil } }
            }
            XCTAssertEqual(texts.rows(matching: words), expected, "\(words) in \(rows)")
            XCTAssertEqual(texts.rows(matching: words, among: Array(rows.indices)), expected)
        }
    }

    func testTheFirstOffsetIsThePlainSearchs() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let haystack = (0..<Int.random(in: 0...300, using: &random)).map { _ in Self.alphabet.randomElement(using: &random)! }
            let needle = (0..<Int.random(in: 1...9, using: &random)).map { _ in Self.alphabet.randomElement(using: &random)! }
            let padded = haystack + Array(repeating: 0, count: ByteSearch.overread)
            let found = padded.withUnsafeBytes { bytes in
                ByteSearch.firstOffset(of: ByteSearch.Needle(needle), in: bytes.baseAddress!, count: haystack.count)
            }
            XCTAssertEqual(found, Self.plainSearch(needle, in: haystack))
        }
    }

    func testARowsBytesAndACopiedRow() {
        var texts = SearchTexts()
        texts.appendRow { $0.append(contentsOf: Array("bank\u{0}".utf8)) }
        texts.appendRow { $0.append(contentsOf: Array("mail\u{0}".utf8)) }
        var copy = SearchTexts()
        copy.appendRow(copying: 1, of: texts)
        XCTAssertEqual(copy.withRow(0) { Array($0) }, Array("mail\u{0}".utf8))
        XCTAssertEqual(copy.rows(matching: [Array("mail".utf8)]), [0])
        texts.clearRow(0)
        XCTAssertEqual(texts.withRow(0) { Array($0) }, [0, 0, 0, 0, 0])
        XCTAssertEqual(texts.rows(matching: [Array("bank".utf8)]), [])
    }

    private static func plainSearch(_ word: [UInt8], in text: [UInt8]) -> Int? {
        guard text.count >= word.count else { return nil }
        return (0...(text.count - word.count)).first { Array(text[$0..<($0 + word.count)]) == word }
    }
}
