import CofferCore
import CofferTestSupport
import Foundation
import XCTest

/// Seeded random tables through our CSV writer and SwiftCSV's reader, and random bytes through
/// every CSV importer: the reader gives back every field exactly, and no input does anything but
/// parse or be refused with `invalidImport`.
final class CSVRoundTripTests: XCTestCase {
    private static let alphabet: [Character] = ["a", "Z", "0", " ", ",", "\"", "\n", "\r\n", "\t", ";", "é", "日", "本", "☕", "'", "\\"]

    private func randomField(_ generator: inout SeededGenerator) -> String {
        String((0..<Int.random(in: 0...12, using: &generator)).map { _ in Self.alphabet.randomElement(using: &generator)! })
    }

    func testQuotedFieldsOfAnyTextReadBackExactly() throws {
        var generator = SeededGenerator(seed: 15)
        for round in 0..<200 {
            let columns = Int.random(in: 1...6, using: &generator)
            let header = (0..<columns).map { "c\($0)" }
            let rows = (0..<Int.random(in: 0...8, using: &generator)).map { _ in (0..<columns).map { _ in randomField(&generator) } }
            // What ItemCSV writes: every field quoted, inner quotes doubled, CRLF after each row.
            let text = ([header] + rows).map { row in
                row.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",") + "\r\n"
            }.joined()
            let table = try CSVTable(Data(text.utf8), file: "r.csv")
            XCTAssertEqual(table.header, header, "round \(round)")
            // A row of one empty field is a blank line to the reader; the writer never makes one from an item.
            let expected = rows.filter { $0 != [""] }
            XCTAssertEqual(table.rows.map(\.values), expected, "round \(round):\n\(text)")
            if table.rows.map(\.values) != expected { return }
        }
    }

    func testRandomBytesAreParsedOrRefusedAsInvalidImport() {
        var generator = SeededGenerator(seed: 16)
        let headers = ["name,url,username,password,note\n", "\"Group\",\"Title\",\"Username\",\"Password\",\"URL\",\"Notes\"\n",
                       "Title,Url,Username,Password\n", "url,username,password,httpRealm,formActionOrigin,guid,timeCreated,timeLastUsed,timePasswordChanged\n"]
        let pieces: [[UInt8]] = [[0x22], [0x2C], [0x0A], [0x0D], [0xEF, 0xBB, 0xBF], [0xC3, 0xA9], [0xFF], [0x61], [0x00], [0x31]]
        let readers: [(Data) throws -> [ImportDraft]] = [
            { try FirefoxCSV.drafts($0, file: "x") }, { try ChromeCSV.drafts($0, file: "x") },
            { try KeePassXCCSV.drafts($0, file: "x") }, { try OnePasswordCSV.drafts($0, file: "x") },
            { try BitwardenJSON.drafts($0, file: "x") },
        ]
        for round in 0..<500 {
            var bytes = Array(headers.randomElement(using: &generator)!.utf8)
            for _ in 0..<Int.random(in: 0...60, using: &generator) { bytes += pieces.randomElement(using: &generator)! }
            for read in readers {
                do {
                    _ = try ImportDraft.items(try read(Data(bytes)), file: "x", now: Timestamp(milliseconds: 0))
                } catch CoreError.invalidImport {
                    // refused: fine
                } catch {
                    XCTFail("round \(round): \(error) for \(bytes)")
                    return
                }
            }
        }
    }
}
