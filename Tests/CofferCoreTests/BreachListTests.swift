import XCTest
@testable import CofferCore
import CofferTestSupport

/// The Pwned Passwords file search: every line found with its count, no absent hash found, at
/// the ends of the file, with CRLF, without a final newline, and malformed files refused.
final class BreachListTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-breach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// `count` distinct random hashes, sorted, each with a count of 1 to 7 digits (lines of
    /// different lengths, as in the real file).
    private func lines(_ count: Int, seed: UInt64) -> [(hash: String, count: Int)] {
        var random = SeededGenerator(seed: seed)
        var hashes = Set<String>()
        while hashes.count < count {
            hashes.insert(String((0..<40).map { _ in "0123456789ABCDEF".randomElement(using: &random)! }))
        }
        return hashes.sorted().map { ($0, Int.random(in: 1...9_999_999, using: &random)) }
    }

    private func write(_ lines: [(hash: String, count: Int)], ending: String = "\n", finalNewline: Bool = true) throws -> BreachList {
        let text = lines.map { "\($0.hash):\($0.count)" }.joined(separator: ending) + (finalNewline ? ending : "")
        let url = directory.appendingPathComponent("list-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: url)
        return try BreachList(path: url.path)
    }

    private func bytes(_ hash: String) -> [UInt8] { Array(hash.utf8) }

    /// The hash with its last digit changed: sorts next to a present line but is absent.
    private func neighbour(of hash: String, in present: Set<String>) -> String? {
        let last = hash.last!
        for digit in "0123456789ABCDEF" where digit != last {
            let candidate = String(hash.dropLast()) + String(digit)
            if !present.contains(candidate) { return candidate }
        }
        return nil
    }

    func testEveryLineIsFoundWithItsCountAndNeighboursAreNot() throws {
        let all = lines(5_000, seed: 15)
        let present = Set(all.map(\.hash))
        for (ending, finalNewline) in [("\n", true), ("\r\n", true), ("\n", false)] {
            let list = try write(all, ending: ending, finalNewline: finalNewline)
            for (index, line) in all.enumerated() where index % 7 == 0 || index == all.count - 1 {
                XCTAssertEqual(try list.count(ofHash: bytes(line.hash)), line.count, "line \(index), ending \(ending.debugDescription)")
                if let absent = neighbour(of: line.hash, in: present) {
                    XCTAssertNil(try list.count(ofHash: bytes(absent)), "absent \(absent)")
                }
            }
            XCTAssertNil(try list.count(ofHash: bytes(String(repeating: "0", count: 40))), "below the first line")
            XCTAssertNil(try list.count(ofHash: bytes(String(repeating: "F", count: 40))), "after the last line")
        }
    }

    func testFirstAndLastLinesAndTinyFiles() throws {
        let all = lines(3, seed: 7)
        for size in 1...3 {
            let list = try write(Array(all.prefix(size)))
            for line in all.prefix(size) { XCTAssertEqual(try list.count(ofHash: bytes(line.hash)), line.count, "\(size) lines") }
            for line in all.dropFirst(size) { XCTAssertNil(try list.count(ofHash: bytes(line.hash)), "\(size) lines") }
        }
        XCTAssertNil(try write([], finalNewline: false).count(ofHash: bytes(all[0].hash)), "empty file")
    }

    func testPasswordsAreLookedUpByTheirUppercaseSHA1() throws {
        // SHA-1("password"), the first entry of every breach list.
        let hash = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8"
        XCTAssertEqual(String(decoding: BreachList.hash(of: "password"), as: UTF8.self), hash)
        var all = lines(1_000, seed: 3)
        all.append((hash, 9_545_824))
        all.sort { $0.hash < $1.hash }
        let list = try write(all)
        XCTAssertEqual(try list.count(of: "password"), 9_545_824)
        XCTAssertNil(try list.count(of: "password1"))
    }

    func testMalformedFilesAndMissingFilesAreRefused() throws {
        let url = directory.appendingPathComponent("bad.txt")
        try Data("not a hash list\nat all\n".utf8).write(to: url)
        XCTAssertThrowsError(try BreachList(path: url.path).count(of: "password")) { error in
            XCTAssertTrue("\(error)".contains("SHA1HEX:COUNT"), "\(error)")
        }
        XCTAssertThrowsError(try BreachList(path: directory.appendingPathComponent("missing").path)) { error in
            XCTAssertTrue("\(error)".contains("Cannot read"), "\(error)")
        }
        XCTAssertThrowsError(try BreachList(path: directory.path), "a directory")
    }
}
