import Foundation
import XCTest
@testable import CofferCore
import CofferFuzzChecks
import CofferSync

/// Every finding of the fuzz checks, fixed: the input that broke it, fed to the same check, and
/// the fixed behaviour pinned down directly.
final class FuzzRegressionTests: XCTestCase {
    private func bytes(_ base64: String, file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        try XCTUnwrap(Data(base64Encoded: base64), file: file, line: line)
    }

    // MARK: FuzzRecords, libFuzzer crash: Timestamp.iso8601 trapped on arithmetic overflow

    /// libFuzzer's crash file (FuzzRecords): its first 8 bytes are Int64.min milliseconds, and
    /// `iso8601` computed `milliseconds - seconds * 1000`, whose product overflows there.
    func testIso8601OfTheSmallestMillisecondsDoesNotTrap() throws {
        let crash = try bytes("gAAAAAAAAAB7ImMiLCJsYXN0X/////////////////////////////////////////////////////////////////////////////////8P////////////////////////////Z3MiOltdfQ==")
        XCTAssertNoThrow(try FuzzChecks.records(crash))
        for milliseconds in [Int64.min, Int64.min + 1, Int64.min + 191, Int64.min + 192, Int64.max] {
            XCTAssertFalse(Timestamp(milliseconds: milliseconds).iso8601.isEmpty)
        }
        // Floor semantics are unchanged for ordinary times before and after the epoch.
        XCTAssertEqual(Timestamp(milliseconds: -1).iso8601, "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp(milliseconds: -1_001).iso8601, "1969-12-31T23:59:58.999Z")
        XCTAssertEqual(Timestamp(milliseconds: 1_767_225_600_123).iso8601, "2026-01-01T00:00:00.123Z")
        XCTAssertEqual(Timestamp(milliseconds: -62_167_219_200_000).iso8601, "0000-01-01T00:00:00.000Z")
    }

    // MARK: Round-trip check (FuzzRecords): last_modified above 2^53

    /// `ItemRecord`'s Decodable took any Int64 `last_modified`, while `ItemRecordJSON` (which
    /// reads every record the vault stores or downloads) refuses whole numbers above 2⁵³: a
    /// record decoded one way was written and could not be read back the other way.
    func testBothItemRecordDecodersRefuseALastModifiedAbove2To53() throws {
        let crash = Data(#"{"deleted":true,"id":"3f0c8a52a77","last_modified":1795319922337203684}"#.utf8)
        XCTAssertNoThrow(try FuzzChecks.records(crash))
        XCTAssertThrowsError(try JSONDecoder().decode(ItemRecord.self, from: crash))
        XCTAssertThrowsError(try RecordCoding.decode(ItemRecord.self, from: crash))
        let largest = Data(#"{"deleted":true,"id":"a","last_modified":9007199254740992}"#.utf8)
        XCTAssertEqual(try JSONDecoder().decode(ItemRecord.self, from: largest).lastModified, 9_007_199_254_740_992)
        XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: largest).lastModified, 9_007_199_254_740_992)
        let smallest = Data(#"{"deleted":true,"id":"a","last_modified":-9223372036854775808}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(ItemRecord.self, from: smallest))
    }

    // MARK: Round-trip check (FuzzInvitations): a pending invitation's expiry lost a millisecond

    /// `meta.pending_invitation` keeps the expiry in milliseconds; `InvitationLeftover` held it as
    /// a `Date`, and 1732672407 ms came back as 1732672406: each store and read moved it earlier.
    func testAPendingInvitationKeepsItsExpiryToTheMillisecond() throws {
        let crash = try bytes("MWh0dHA6Ly8xMjcuMC4wLjE6ODg4OC92MSBydi0wMDExMjIzMzQ0NTU2Njc3ODg5OWFhYmJjY2RkZWVmZiBjR0Z6YzNkdmNtUT0gMDAwMTczMjY3MjQwNyA0MjQy")
        XCTAssertNoThrow(try FuzzChecks.invitations(crash))
        for milliseconds in [1_732_672_407, 1_767_225_600_001, 1_767_226_200_999] {
            XCTAssertNoThrow(try FuzzChecks.invitations(Data("1http://127.0.0.1/v1 rv-00 cGE= \(milliseconds) 42".utf8)))
        }
    }

    // MARK: Round-trip check (FuzzRecords, FuzzImport): a leap second rolled into year 10000

    /// `23:59:60` on the last day of 9999 parsed to year 10000, which prints with five digits and
    /// does not parse: an imported item holding it was stored, then could never be decrypted
    /// ("decrypted to malformed data").
    func testALeapSecondCannotRollOverIntoYear10000() throws {
        let text = Data("9999-12-31T23:59:60Z".utf8)
        XCTAssertNoThrow(try FuzzChecks.records(text))
        XCTAssertNil(Timestamp(iso8601: "9999-12-31T23:59:60Z"))
        XCTAssertNil(Timestamp(iso8601: "9999-12-31T23:59:60.5Z"))
        XCTAssertEqual(Timestamp(iso8601: "9999-12-31T23:59:59.999Z")?.iso8601, "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp(iso8601: "2016-12-31T23:59:60Z")?.iso8601, "2017-01-01T00:00:00.000Z")

        let file = Data(#"[{"title":"x","created":"9999-12-31T23:59:60Z"}]"#.utf8)
        XCTAssertNoThrow(try FuzzChecks.importFile(file))
        XCTAssertThrowsError(try ItemExchange.parseExport(file, now: FuzzChecks.importNow)) { error in
            guard case .invalidImport(let reason)? = error as? CoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("item 1"), reason)
        }
        let item = Data(#"{"created":"9999-12-31T23:59:60Z","disabled":false,"entry":{"kind":"login","notes":"","password":"","username":""},"history":[],"id":"a","modified":"9999-12-31T23:59:60Z","origins":[],"tags":[],"title":"x"}"#.utf8)
        XCTAssertNoThrow(try FuzzChecks.itemJSON(item))
        XCTAssertThrowsError(try ItemCodec.decode(item))
    }

    // MARK: FuzzKintoResponses check: a huge Backoff trapped when the engine stored it

    /// `Backoff: 1e300` (in a batch sub-response or a raw answer) became a deadline that trapped in
    /// `Timestamp(Date)` when the engine stored it (a hostile or broken server crashed the client);
    /// `1e13` gave one the vault could not read back. Waits are now capped at a day.
    func testAHugeBackoffIsCappedAndStorable() throws {
        let answers = [
            #"{"responses":[{"status":201,"headers":{"Backoff":"1e300"},"body":{"data":{"id":"a","last_modified":1}}}]}"#,
            #"{"responses":[{"status":503,"headers":{"Retry-After":"1e300","Backoff":"10000000000000"},"body":{}}]}"#,
            #"{"responses":[{"status":409,"headers":{"retry-after":" 9e15 "},"body":null}]}"#,
        ]
        for answer in answers {
            XCTAssertNoThrow(try KintoFuzzChecks.responses(Data(answer.utf8)), answer)
        }
    }

    // MARK: FuzzForeignImport check: a KeePassXC time in year 20234

    /// Foundation's ISO-8601 parser, the fallback for other managers' times, reads a five-digit
    /// year: a KeePassXC (or Bitwarden) export dated "20234-01-01T00:00:00Z" gave an item whose
    /// time prints with five digits and does not parse back — sealed, then never readable. Such a
    /// time now counts as absent, like an unreadable one; Firefox's milliseconds likewise.
    func testAnImportedTimeOutsideFourDigitYearsCountsAsAbsent() throws {
        let crash = try bytes("AiJHcm91cCIsIlRpdGxlIiwiVXNlcm5hbWUiLCJQYXNzd29yZCIsIlVSTCIsIk5vdGVzIiwiVE9UUCIsIkljb24iLCJMYXN0IE1vZGlmaWVkIiwiQ3JlYXRlZCIKIlBhc3N3b3Jkcy9Xb3JrIiwiQSIsImFubiIsInB3IiwiaHR0cHM6Ly9hLmV4YW1wbGUiLCJuIiwiIiwiMCIsIjIwMjM0LTAxLTAxVDAwOjAwOjAwWiIsIjIwMjMtMDEtMDFUMDA6MDA6MDBaIgo=")
        XCTAssertNoThrow(try FuzzChecks.foreignImport(crash))
        XCTAssertNil(ImportDraft.time(iso8601: "20234-01-01T00:00:00Z"))
        XCTAssertNil(ImportDraft.time(iso8601: "20234-01-01T00:00:00.000+02:00"))
        XCTAssertNil(ImportDraft.time(milliseconds: "253402300800000"))
        XCTAssertNil(ImportDraft.time(milliseconds: "-62167219200001"))
        XCTAssertEqual(ImportDraft.time(milliseconds: "253402300799999")?.iso8601, "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(ImportDraft.time(iso8601: "2023-01-01T02:00:00+02:00")?.iso8601, "2023-01-01T00:00:00.000Z")

        let csv = Data("""
            "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
            "Root","A","ann","pw","https://a.example","n","","0","20234-01-01T00:00:00Z","2023-01-01T00:00:00Z"

            """.utf8)
        let items = try ImportDraft.items(try KeePassXCCSV.drafts(csv, file: "f"), file: "f", now: FuzzChecks.importNow)
        XCTAssertEqual(items.map(\.modified.iso8601), ["2023-01-01T00:00:00.000Z"])
        XCTAssertNoThrow(try ItemCodec.decode(ItemCodec.encode(items[0])))
    }

    // MARK: FuzzKintoResponses check: a last_modified written with a fraction

    /// A batch answer whose record says `"last_modified":179532151436.9999999999`: Foundation's
    /// parser (the batch answer, `KintoJSON.int64`) made a decimal that truncates to …436, the
    /// records' reader a double that rounds to …437: the push step and the stored record would
    /// disagree on the version. Whole numbers are now taken only as written whole, within 2^53,
    /// by both (9007199254740993 also differed: exact in one, rounded to …992 in the other).
    func testAWholeNumberIsTakenOnlyAsWrittenWholeByBothReaders() throws {
        let crash = try bytes("eyJyZXNwb25zZXMiOlt7InBhdGgiOiIvdjEvYnVja2V0cy9kZWZhY29sbGVjdGlvbnMvaXRlbXMvcmVjb3Jkcy9hYmMiLCJzdGF0dXMiOjIwMSwiaGVhZGVycyI6eyJMb2ZmIjoiMzAifSwiYm9keSI6eyJwZXJtaXNzaW9ucyI6eyJ3cml0ZSI6WyJhY2NvdW50OmZ1enoiXX0sImRhdGEiOnsiYWN0aXZlIjoiYWN0aXZlIiwib3JpZ2lucyI6W10sInRhZ3MiOltdLCJlbmNyeXB0ZWQiOiJBUUlEIiwiaWQiOiJhYmMiLCJsYXN0X21vZGlmaWVkIjoxNzk1MzIxNTE0MzY3fX19LHsicGF0aCI6Ii92MS9idWNrZXRzL2RlZmF1bHQvY29sbGVjdGlvbnVsdC9jb2xsZWN0aW9ucy9pdHMvYWJjIiwic3RhdHVzIjoyMDEsImhlYWRlcnMiOnsiTGFzdC1Nb2RpZmllZCI6IlN1biwgMjIgTm92IDIwMjZMZW5ndGgsIFJldHJmZiwgQWxlcnQiLCJYLUNvbnRlbnQtVHlwZS1PcHRpb25zIjoibm8iLCJCYWNrb2ZmIjoiMzAifSwiYm9keSI6eyJwZXJtaXNzaW9ucyI6eyJ3cml0ZSI6WyJhY2NvdW50OmZ1enoiXX0sImRhdGEiOnsiYWN0aXZlIjoiYWN0aXZlIiwib3JpZ2lucyI6W10sInRhZ3MiOltdLCJlbmNyeXB0ZWQiOiJBUUlEIiwiaWQiOiJhYmMiLCJsYXN0X21vZGlmaWVkIjoxNzk1MzIxNTE0MzYuOTk5OTk5OTk5OX19fSx7InBhdGgiOiIvdjEvYnVja2V0cy9kZWZhdWx0L2NvbGxlY3Rpb25zL2Vtcy9yZWNvcmRzL2FiYyIsInN0YXR1cyI6MjAxLCJoZWFkZXJzIjp7Ikxhc3QtTW9kaWZpZWQiOiJTdW4sIDIyIE5mLCBBbGVydCJ9LCJib2R5Ijp7InBlcm1pc3Npb3MiOnsid3JpdGUiOlsiYWNjb3VudDpmdXp6Il19LCJkYXRhIjp7ImFjdGl2ZSI6ImFjdGl2ZSIsIm9yaWdpbnMiOltdLCJ0YWdzIjpbXSwiZW5jcnlwdGVkIjoiQVFJRCIsImlkIjoiYWJjIiwibGFzdF9tb2RpZmllZCI6MTc5NTMyMTUxNDM2OH19fSx7InBhdGgiOiIvdjEvYnVja2V0cy9kZWZhdWx0L2NvbGxlY3Rpb25zL2Vtcy9yZWNvcmRzL2FiYyIsInN0YXR1cyI6MjAxLCJoZWFkZXJzIjp7Ikxhc3QtTW9kaWZpZWQiOiJTdW4sIDIyIE5mLCBBbGVydCJ9LCJib2R5Ijp7InBlcm1pc3Npb25zIjp7IndyaXRlIjpbImFjY291bnQ6ZnV6eiJdfSwiZGF0YSI6eyJhY3RpdmUiOiJhY3RpdmUiLCJvcmlnaW5zIjpbXSwidGFncyI6W10sImVuY3J5cHRlZCI6IkFRSUQiLCJpZCI6ImFiYyIsImxhc3RfbW9kaWZpZWQiOjE3OTUzMjE1MTQzNjh9fX0seyJwYXRoIjoiL3YxL2J1Y2tldHMvZGVmYXVsdG9yZHMvbWlzc2luZyIsInN0YXR1cyI6NDA0LCJoZWFkZXJzIjp7IkNvbnRlbnQtTGVuZ3Rocm9yIjoiTm90IEZvdW5kIiwiZGV0YWlscyI6eyJpZCI6Im1pc3NpbmciLCJfbmFtZSI6InJlY29kIn19fV19")
        XCTAssertNoThrow(try KintoFuzzChecks.responses(crash))
        for text in ["179532151436.9999999999", "1.0", "1e3", "1795321514368.0", "9007199254740993", "-9007199254740993"] {
            let record = Data(#"{"deleted":true,"id":"a","last_modified":\#(text)}"#.utf8)
            XCTAssertThrowsError(try RecordCoding.decode(ItemRecord.self, from: String(decoding: record, as: UTF8.self)), text)
            let parsed = try JSONSerialization.jsonObject(with: Data(#"{"n":\#(text)}"#.utf8)) as? [String: Any]
            XCTAssertNil(KintoJSON.int64(parsed?["n"]), text)
        }
        for (text, value) in [("1795321514368", Int64(1_795_321_514_368)), ("-0", 0), ("9007199254740992", 9_007_199_254_740_992)] {
            let record = Data(#"{"deleted":true,"id":"a","last_modified":\#(text)}"#.utf8)
            XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: String(decoding: record, as: UTF8.self)).lastModified, value)
            let parsed = try JSONSerialization.jsonObject(with: Data(#"{"n":\#(text)}"#.utf8)) as? [String: Any]
            XCTAssertEqual(KintoJSON.int64(parsed?["n"]), value, text)
        }
    }

    // MARK: FuzzForeignImport check: hostile KeePass XML (keepassxc-xml, selector 6)

    /// What an attacker's XML file can try: entity expansion, an external entity, nesting past
    /// any stack, a 20 MB attribute, an encoding that hides a DTD from the byte scan. Each passes
    /// the fuzz check (refused with `invalidImport`, nothing stored, no crash) with one sentence.
    func testHostileKeePassXMLIsRefusedWithOneSentence() throws {
        let rows: [(name: String, data: Data, expected: String)] = [
            ("billion laughs", Data(HostileXML.billionLaughs.utf8), "has a document type or entity declaration"),
            ("external entity", Data(HostileXML.externalEntity.utf8), "has a document type or entity declaration"),
            ("UTF-7 DTD", Data(HostileXML.utf7.utf8), "declares the encoding \"UTF-7\""),
            ("nesting 100,000 deep", Data(HostileXML.deep(100_000).utf8), "nests elements more than 100 deep"),
            ("a 20 MB attribute", Data(HostileXML.hugeAttribute(20_000_000).utf8), "is not well-formed XML"),
        ]
        XCTAssertEqual(FuzzChecks.foreignImportFormats[6], "keepassxc-xml")
        for row in rows {
            XCTAssertNoThrow(try FuzzChecks.foreignImport(Data([6]) + row.data), row.name)
            XCTAssertThrowsError(try KeePassXCXML.drafts(row.data, file: "f"), row.name) { error in
                let reason = message(error)
                XCTAssertTrue(reason.hasPrefix("f ") && reason.contains(row.expected), "\(row.name): \(reason)")
                XCTAssertFalse(reason.contains("\n") || reason.contains(". "), "\(row.name): one sentence: \(reason)")
            }
        }
    }

    // MARK: FuzzForeignImport, libFuzzer crash (ASan): a processing instruction without data

    /// libFuzzer's crash file (FuzzForeignImport, KeePass XML): `<?xm-CS?>`, a processing
    /// instruction with no data, made FoundationXML's handler call strlen on a null pointer
    /// (SIGSEGV in `_NSXMLParserProcessingInstruction`). The byte check now refuses any `<?` but
    /// the declaration at the start, before the parser sees the file.
    func testAProcessingInstructionIsRefusedBeforeTheParserSeesIt() throws {
        let crash = try bytes("Bjw/eG0tQ1M/Pgo8S2VlUGFzc0ZpbGU+PE1ldANUZXk+UElOVGV5PlBJTjwvS2V5Y2xlQmluVVVlPjxCaW5hcnkgSUQ9")
        XCTAssertNoThrow(try FuzzChecks.foreignImport(crash))
        for text in ["<?x?><KeePassFile/>", "<?xml version=\"1.0\"?><KeePassFile><?pi?></KeePassFile>",
                     "<KeePassFile><Meta><?x data?></Meta></KeePassFile>"] {
            XCTAssertThrowsError(try KeePassXCXML.read(Data(text.utf8), file: "kp.xml"), text) { error in
                XCTAssertEqual(message(error), "kp.xml has a processing instruction (<?…?>) after its start, which a KeePass export never has", text)
            }
        }
        XCTAssertNoThrow(try KeePassXCXML.read(Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?><KeePassFile/>".utf8), file: "kp.xml"),
                         "the declaration at the start is still read")
        XCTAssertNoThrow(try KeePassXCXML.read(Data([0xEF, 0xBB, 0xBF]) + Data("<?xml version=\"1.0\"?><KeePassFile/>".utf8), file: "kp.xml"),
                         "after a byte order mark too")
    }
}
