import XCTest
@testable import CofferCore
import CofferFuzzChecks
import CofferTestSupport

/// config.toml's reader: the TOML subset it takes, and one problem with its line for the rest.
final class ConfigDocumentTests: XCTestCase {
    private func parse(_ text: String) throws -> ConfigDocument { try ConfigDocument.parse(Array(text.utf8)) }

    private func problem(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> ConfigProblem? {
        do {
            _ = try ConfigDocument.parse(Array(text.utf8))
            XCTFail("accepted: \(text)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testReadsTablesValuesAndComments() throws {
        let document = try parse("""
            # a comment
            vault = "~/v.db"   # after a value
            auto-lock = 1_200
            flag = false

            [colors]
            error = 'C:\\no\\escape'
            [keys]
            copy-password = "\\u0079 ^G\\t"
            negative = -5
            """)
        XCTAssertEqual(document.entries, [
            .init(table: nil, key: "vault", value: .string("~/v.db"), line: 2),
            .init(table: nil, key: "auto-lock", value: .integer(1200), line: 3),
            .init(table: nil, key: "flag", value: .boolean(false), line: 4),
            .init(table: "colors", key: "error", value: .string("C:\\no\\escape"), line: 7),
            .init(table: "keys", key: "copy-password", value: .string("y ^G\t"), line: 9),
            .init(table: "keys", key: "negative", value: .integer(-5), line: 10),
        ])
        XCTAssertEqual(document.tables.map(\.name), ["colors", "keys"])
    }

    func testCarriageReturnsAndAnEmptyFile() throws {
        XCTAssertEqual(try parse("a = 1\r\nb = 2\r\n").entries.map(\.line), [1, 2])
        XCTAssertEqual(try parse("").entries, [])
    }

    /// Each refusal names its line, and says what is wrong in words.
    func testRefusalsNameTheLine() {
        let cases: [(String, Int, String)] = [
            ("a = 1\nb 2", 2, "has no “=” after “b”"),
            ("a = [1, 2]", 1, "not a string in quotes"),
            ("a = 1.5", 1, "cannot read"),
            ("a = 012", 1, "cannot read"),
            ("a = 99999999999999999999", 1, "too large"),
            ("a = \"open", 1, "without its closing quote"),
            ("a = \"\"\"x\"\"\"", 1, "multi-line"),
            ("a = \"\\q\"", 1, "escape \\q"),
            ("a = \"\\uD800\"", 1, "not a Unicode character"),
            ("a = 1 2", 1, "something after its value"),
            ("a.b = 1", 1, "dotted key"),
            ("\"a\" = 1", 1, "quoted key"),
            ("[keys]\n[keys]", 2, "repeats the table [keys]"),
            ("[[keys]]", 1, "array of tables"),
            ("[keys", 1, "not [name]"),
            ("a = 1\na = 2", 2, "a second time"),
            ("a = tru", 1, "not a string in quotes"),
            ("a =", 1, "no value"),
            ("a = \"x\u{1B}y\"", 1, "control character"),
            ("= 1", 1, "neither a [table]"),
        ]
        for (text, line, reason) in cases {
            guard let problem = problem(text) else { continue }
            XCTAssertEqual(problem.line, line, text)
            XCTAssertTrue(problem.reason.contains(reason), "\(text): \(problem.reason)")
        }
    }

    func testTheSameKeyInTwoTablesIsTwoKeys() throws {
        XCTAssertEqual(try parse("a = 1\n[keys]\na = 2").entries.count, 2)
    }

    func testSizeAndEncodingAreTheFiles() {
        let large = [UInt8](repeating: UInt8(ascii: "#"), count: ConfigDocument.sizeLimit + 1)
        XCTAssertThrowsError(try ConfigDocument.parse(large)) { error in
            XCTAssertEqual((error as? ConfigProblem)?.line, nil)
        }
        XCTAssertThrowsError(try ConfigDocument.parse([0x61, 0x3D, 0x22, 0xFF, 0x22]))
    }

    func testTheSentenceNamesTheFileAndTheLine() {
        XCTAssertEqual(ConfigProblem(line: 3, reason: "has no “=” after “b”").sentence(file: "/h/.config/coffer/config.toml"),
                       "Line 3 of /h/.config/coffer/config.toml has no “=” after “b”.")
        XCTAssertEqual(ConfigProblem(line: nil, reason: "is not UTF-8 text").sentence(file: "/c.toml"),
                       "The configuration file /c.toml is not UTF-8 text.")
    }
}

/// The fuzz target's check over mutated seeds, in every `make check`: `make fuzz` runs it for
/// longer under libFuzzer.
final class ConfigFuzzCheckTests: XCTestCase {
    func testMutatedSeedsKeepTheInvariants() throws {
        let seeds = try SeedCorpusTests.corpus("FuzzConfig").map { Array($0.data) }
        var random = SeededGenerator(seed: 43)
        let alphabet = Array("[]=\"'#\\ \t\n\r-_.aeuz019+".utf8) + [0x00, 0x1B, 0xC3, 0xA9, 0xFF]
        for _ in 0..<20_000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &random)]
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &random)
                let byte = alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.insert(byte, at: position)
                case 1 where position < bytes.count: bytes.remove(at: position)
                default: if position < bytes.count { bytes[position] = byte }
                }
            }
            XCTAssertNoThrow(try FuzzChecks.config(Data(bytes)), String(decoding: bytes, as: UTF8.self))
        }
    }
}
