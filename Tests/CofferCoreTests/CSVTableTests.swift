import CofferCore
import Foundation
import XCTest

/// What SwiftCSV does for us and what `CSVTable` checks around it.
final class CSVTableTests: XCTestCase {
    private func table(_ text: String) throws -> CSVTable { try CSVTable(Data(text.utf8), file: "t.csv") }

    private func refusal(_ data: Data) -> String {
        do {
            _ = try CSVTable(data, file: "t.csv")
            return "accepted"
        } catch {
            return message(error)
        }
    }

    func testQuotesCommasNewlinesUTF8AndBOM() throws {
        let parsed = try table("\u{FEFF}a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"1\n2\r\n3\"\n日本,é,\n")
        XCTAssertEqual(parsed.header, ["a", "b", "c"], "the BOM is not part of the first column's name")
        XCTAssertEqual(parsed.rows.map(\.values), [["x, y", "say \"hi\"", "1\n2\r\n3"], ["日本", "é", ""]])
        XCTAssertEqual(parsed.rows.map(\.line), [2, 5], "lines count the newlines inside quoted fields")
    }

    func testBlankLinesAreSkippedAndQuotedSpacesKept() throws {
        let parsed = try table("a,b\n\n\" x \",\"\"\n\n")
        XCTAssertEqual(parsed.rows.map(\.values), [[" x ", ""]])
        XCTAssertEqual(parsed.rows.first?.line, 3)
    }

    /// A SwiftCSV 0.10.0 limit, pinned so an upgrade that fixes it is noticed: whitespace at the
    /// start of an unquoted field is dropped (its parser skips whitespace "between fields").
    /// Quoted fields keep it, which is how Firefox, KeePassXC and Coffer's own export write them.
    func testSwiftCSVDropsLeadingWhitespaceOfUnquotedFieldsOnly() throws {
        let parsed = try table("a,b\n  two spaces,\" quoted\"\n")
        XCTAssertEqual(parsed.rows.map(\.values), [["two spaces", " quoted"]])
    }

    func testMalformedFilesAreRefusedWithFileAndLine() {
        XCTAssertEqual(refusal(Data("a,b,c,d,e\n1,2,3,4,5\n1,2\n".utf8)), "t.csv line 3: 2 field(s), the header has 5")
        XCTAssertEqual(refusal(Data("a,b\n1,\"open\n".utf8)), "t.csv line 2: the file ends inside a quoted field; is it truncated?")
        XCTAssertEqual(refusal(Data("a,b\n1,2\n3,\u{FF}".utf8.map { $0 } + [0xFF, 0xFE])), "t.csv line 3: the text is not valid UTF-8")
        XCTAssertEqual(refusal(Data()), "t.csv is empty: it has no header line")
        var long = Data("a,b\n1,".utf8)
        long.append(Data(repeating: UInt8(ascii: "x"), count: 10 * 1_048_576))
        XCTAssertEqual(refusal(long), "t.csv line 2: longer than 1 MiB")
    }

    func testWrongHeaderNamesTheMissingColumn() throws {
        let parsed = try table("name,url\nx,y\n")
        XCTAssertThrowsError(try parsed.columns(required: ["url", "username", "password"], format: "Firefox")) { error in
            XCTAssertEqual(message(error), "t.csv line 1: the header has no \"username\" column, so it is not a Firefox export "
                           + "(expected url, username, password)")
        }
    }
}
