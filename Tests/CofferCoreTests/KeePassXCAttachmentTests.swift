import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// KeePass XML attachments become files (`ImportDraft.files`): plain and gzipped data, data over
/// libxml2's text limit (lifted out before parsing), and what a stranger's file can put there
/// instead, each kept out and named in the notes while the entry itself is imported.
final class KeePassXCAttachmentTests: XCTestCase {
    private let now = Timestamp(milliseconds: 1_800_000_000_000)

    /// One entry titled "T" naming `attachments` (name, Ref), with `binaries` as `Meta/Binaries`.
    private func file(binaries: String, attachments: [(String, String)]) -> Data {
        let named = attachments.map { "<Binary><Key>\($0.0)</Key><Value Ref=\"\($0.1)\"/></Binary>" }.joined()
        return Data(("<KeePassFile><Meta><Binaries>\(binaries)</Binaries></Meta><Root><Group><Name>R</Name><Entry>"
            + "<String><Key>Title</Key><Value>T</Value></String>\(named)</Entry></Group></Root></KeePassFile>").utf8)
    }

    private func gzip(_ bytes: Data) throws -> Data {
        let result = try ExternalTool.run("/bin/gzip", ["-c", "-n", "-9"], stdin: bytes)
        XCTAssertEqual(result.status, 0)
        return result.output
    }

    private func draft(_ data: Data) throws -> ImportDraft {
        let drafts = try KeePassXCXML.drafts(data, file: "kp.xml")
        XCTAssertEqual(drafts.count, 1)
        return try XCTUnwrap(drafts.first)
    }

    func testTheFixtureKeepsBothFilesByteForByte() throws {
        let export = try KeePassXCXML.read(Data(ImportFixtures.keepassxcXML.utf8), file: "kp.xml")
        let japan = try XCTUnwrap(export.drafts.first { $0.title == "日本" })
        XCTAssertEqual(japan.files.map(\.name), ["id.pdf", "note.txt"])
        XCTAssertEqual(try japan.files.map { try $0.bytes() }, [Data("hello world!".utf8), Data("a note, gzipped\n".utf8)],
                       "base64 split over lines, and gzip")
        XCTAssertEqual(japan.files.map(\.size), [12, 16])
    }

    /// 12 MB of data: its base64 is over libxml2's 10,000,000-byte limit for a text, which refuses
    /// the whole file unless the data is lifted out first (as it did before).
    func testDataOverTheXMLReadersTextLimitIsImported() throws {
        let bytes = Data((0..<12_000_000).map { _ in UInt8.random(in: 0...255) })
        let packed = try gzip(bytes)
        let data = file(binaries: "<Binary ID=\"0\" Compressed=\"True\">\(packed.base64EncodedString())</Binary>",
                        attachments: [("big.bin", "0")])
        let files = try draft(data).files
        XCTAssertEqual(files.map(\.name), ["big.bin"])
        XCTAssertEqual(try files.first?.bytes(), bytes)
    }

    func testWhatAStrangerCanPutThereIsNamedInTheNotesAndTheEntryStays() throws {
        let bomb = try gzip(Data(count: 17 << 20))
        XCTAssertLessThan(bomb.count, 40_000, "17 MiB of zeros is a small file")
        let binaries = """
            <Binary ID="0" Compressed="True">\(bomb.base64EncodedString())</Binary>\
            <Binary ID="1" Compressed="True">\(Data("not gzip".utf8).base64EncodedString())</Binary>\
            <Binary ID="2">aGVsbG8=</Binary>\
            <Binary ID="3">a&amp;b</Binary>\
            <Binary ID="4" Compressed="True">\(try gzip(Data("cut".utf8)).dropLast(6).base64EncodedString())</Binary>
            """
        let draft = try draft(file(binaries: binaries, attachments: [
            ("bomb.bin", "0"), ("fake.gz", "1"), ("a/b", "2"), ("", "2"), ("gone.txt", "9"), ("amp.bin", "3"), ("cut.gz", "4"),
            ("fine.txt", "2"),
        ]))
        XCTAssertEqual(draft.files.map(\.name), ["fine.txt"])
        XCTAssertEqual(try draft.files.first?.bytes(), Data("hello".utf8))
        XCTAssertEqual(draft.extraNotes, [
            "Attachment not imported: bomb.bin (over 16 MiB once uncompressed; an attachment holds at most 16 MiB)",
            "Attachment not imported: fake.gz (its data is marked compressed but is not gzip)",
            "Attachment not imported: a/b (its name is not a file name)",
            "Attachment not imported:  (its name is not a file name)",
            "Attachment not imported: gone.txt (its data is not in the file)",
            "Attachment not imported: amp.bin (its data is not base64)",
            "Attachment not imported: cut.gz (its data is marked compressed but is not gzip)",
        ])
        let items = try ImportDraft.items([draft], file: "kp.xml", now: now)
        XCTAssertEqual(items.map(\.title), ["T"])
        XCTAssertTrue(items[0].entry.notes.contains("bomb.bin"))
    }

    /// A file that names the attribute the lifting adds cannot point one element at another's data
    /// and slip past the parser: the attribute appears twice, and XML refuses that.
    func testAForgedLiftedAttributeIsRefused() {
        let data = file(binaries: "<Binary ID=\"0\" coffer-lifted=\"0\">aGVsbG8=</Binary>", attachments: [("a", "0")])
        XCTAssertThrowsError(try KeePassXCXML.read(data, file: "kp.xml")) { error in
            XCTAssertEqual(message(error), "kp.xml is not well-formed XML (line 1)")
        }
    }

    func testAnItemKeepsAtMostTheFileCountLimit() throws {
        let count = Attachment.countLimit + 1
        let draft = try draft(file(binaries: "<Binary ID=\"0\">aGVsbG8=</Binary>", attachments: (0..<count).map { ("f\($0)", "0") }))
        XCTAssertEqual(draft.files.count, Attachment.countLimit)
        XCTAssertEqual(draft.extraNotes, ["Attachment not imported: f\(count - 1) (an item holds at most \(Attachment.countLimit) files)"])
    }

    /// One small gzip named by every entry could stand for many times the file's size: past
    /// `fileBudget` in all, files go to the notes.
    func testAnImportAttachesAtMostItsBudget() {
        let file = ImportedFile(name: "16.bin", size: Attachment.sizeLimit, stored: Data(), isCompressed: true)
        var drafts = (0..<70).map { index -> ImportDraft in
            var draft = ImportDraft(place: "entry \(index + 1)")
            draft.files = [file]
            return draft
        }
        KeePassXCXML.keepWithinBudget(&drafts)
        let kept = KeePassXCXML.fileBudget / Attachment.sizeLimit
        XCTAssertEqual(drafts.filter { !$0.files.isEmpty }.count, kept)
        XCTAssertEqual(drafts[kept].extraNotes, ["Attachment not imported: 16.bin (the import's files pass 1 GiB in all)"])
    }

    func testGzipStopsAtItsLimitAndRefusesWhatIsNotGzip() throws {
        let packed = try gzip(Data(repeating: 7, count: 100_000))
        XCTAssertEqual(Gzip.inflate(packed, limit: 100_000), .success(Data(repeating: 7, count: 100_000)))
        XCTAssertEqual(Gzip.inflatedSize(packed, limit: 99_999), .failure(.tooLarge))
        XCTAssertEqual(Gzip.inflate(packed.dropLast(1), limit: 100_000), .failure(.notGzip), "cut short")
        var corrupt = packed
        corrupt[corrupt.count - 5] ^= 0xFF
        XCTAssertEqual(Gzip.inflate(corrupt, limit: 100_000), .failure(.notGzip), "its length check fails")
        XCTAssertEqual(Gzip.inflate(Data(), limit: 10), .failure(.notGzip))
    }
}
