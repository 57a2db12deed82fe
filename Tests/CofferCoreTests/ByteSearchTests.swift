import XCTest
@testable import CofferCore

/// The vector search agrees with a plain one on every needle length and position, and never finds
/// a match in the bytes past `count` that it may read.
final class ByteSearchTests: XCTestCase {
    func testItAgreesWithAPlainSearchAndIgnoresWhatFollowsTheHaystack() {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("abn".utf8)
        for _ in 0..<3000 {
            let count = Int.random(in: 0...70, using: &random)
            let haystack = (0..<count).map { _ in alphabet.randomElement(using: &random)! }
            let needle = (0..<Int.random(in: 1...19, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            // The needle itself right after the haystack, where the search may read but not find.
            let buffer = haystack + needle + Array(repeating: needle.last!, count: ByteSearch.overread)
            let expected = count >= needle.count
                && (0...(count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
            let found = buffer.withUnsafeBytes { bytes in
                ByteSearch.contains(bytes.baseAddress!, count: count, ByteSearch.Needle(needle))
            }
            XCTAssertEqual(found, expected, "\(String(decoding: needle, as: UTF8.self)) in \(String(decoding: haystack, as: UTF8.self))")
        }
    }

    func testMatchesAtEitherEndAndAcrossTheVectorBoundary() {
        let haystack = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        let padded = haystack + Array(repeating: 0, count: ByteSearch.overread)
        for needle in ["01", "yz", "0123456789abcdefghij", "opq", "fg", "z", "0"] {
            let found = padded.withUnsafeBytes { bytes in
                ByteSearch.contains(bytes.baseAddress!, count: haystack.count, ByteSearch.Needle(Array(needle.utf8)))
            }
            XCTAssertTrue(found, needle)
        }
        let missing = padded.withUnsafeBytes { bytes in
            ByteSearch.contains(bytes.baseAddress!, count: haystack.count, ByteSearch.Needle(Array("za".utf8)))
        }
        XCTAssertFalse(missing)
    }
}
