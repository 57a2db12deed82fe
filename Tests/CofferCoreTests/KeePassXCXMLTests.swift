import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// `import --format keepassxc-xml` on the hand-written fixture (`ImportFixtures.keepassxcXML`):
/// fields, hidden custom fields, TOTP, history, tags, times, the recycle bin
/// skipped; and files a stranger could send, each refused with one sentence. Attachments:
/// `KeePassXCAttachmentTests`.
final class KeePassXCXMLTests: XCTestCase {
    private let now = Timestamp(milliseconds: 1_800_000_000_000)

    private func imported() throws -> (items: [Item], recycled: Int) {
        let export = try KeePassXCXML.read(Data(ImportFixtures.keepassxcXML.utf8), file: "kp.xml")
        return (try ImportDraft.items(export.drafts, file: "kp.xml", now: now), export.recycled)
    }

    private func time(_ text: String) -> Timestamp? { Timestamp(iso8601: text) }

    func testTheFixtureKeepsEveryFieldAndSkipsTheRecycleBin() throws {
        let (items, recycled) = try imported()
        XCTAssertEqual(items.map(\.title), ["Café ☕", "日本"])
        XCTAssertEqual(recycled, 2, "the recycle bin's entry and the one in a group inside it")

        let cafe = items[0]
        XCTAssertEqual(cafe.entry.kind, "login")
        XCTAssertEqual(cafe.entry.username, "ünï")
        XCTAssertEqual(cafe.entry.password, "pa\"ss<word>&")
        XCTAssertEqual(cafe.entry.totp, "otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&period=30")
        XCTAssertEqual(cafe.origins, ["https://café.example", "https://login.café.example"], "URL, then KP2A_URL")
        XCTAssertEqual(cafe.entry.notes, "line 1\nline 2")
        XCTAssertEqual(cafe.entry.custom.map { [$0.label, $0.value, $0.type] }, [["PIN", "1234", "hidden"], ["Recovery email", "r@example.org", "text"]])
        XCTAssertEqual(cafe.tags, ["Work", "Servers", "blue", "green"], "the groups below the top one, then the entry's tags")
        XCTAssertEqual(cafe.created, time("2023-01-02T03:04:05Z"))
        XCTAssertEqual(cafe.modified, time("2024-05-06T07:08:09Z"))
        XCTAssertEqual(cafe.lastUsed, time("2025-01-01T00:00:00Z"))

        let japan = items[1]
        XCTAssertEqual(japan.tags, [], "an entry of the top group has no tag")
        XCTAssertEqual(japan.entry.password, "")
        XCTAssertEqual(japan.entry.custom.map { [$0.label, $0.value, $0.type] },
                       [["Security question", "Name of the first pet?", "text"], ["Answer", "Rex", "hidden"]])
        XCTAssertEqual(japan.entry.notes, """
            Expires: 2025-01-01T00:00:00.000Z
            Override URL: cmd://firefox {URL}
            Auto-Type sequence: {USERNAME}{ENTER}
            Auto-Type for 日本 - Firefox: (the default sequence)
            """)
        XCTAssertEqual(japan.created, time("2023-06-07T08:09:10Z"), "KDBX 3.1's ISO times read too")
        XCTAssertEqual(japan.modified, time("2024-02-03T04:05:06Z"))
    }

    /// Three past versions: the newest differs from the entry only in its title (no history step),
    /// the one before changed the password, the oldest the password, notes, TOTP and custom fields.
    func testHistoryIsAPatchPerChangedVersionNewestFirst() throws {
        let cafe = try imported().items[0]
        let pin = try XCTUnwrap(cafe.entry.custom.first { $0.label == "PIN" })
        XCTAssertEqual(cafe.history.map(\.created), [time("2024-04-05T00:00:00Z"), time("2024-03-04T05:06:07Z")])
        XCTAssertEqual(cafe.history.first?.patch, .object(["password": .string("mid-pw")]))
        XCTAssertEqual(cafe.history.last?.patch, .object([
            "password": .string("old-pw"), "notes": .string("line 1"), "totp": .null,
            "custom": .array([.object(["id": .string(pin.id), "label": .string("PIN"), "type": .string("hidden"), "value": .string("0000")])]),
        ]), "the PIN keeps its id across versions")
        // Applying the patches in turn gives back each version.
        var entry = cafe.entry.jsonValue
        for step in cafe.history { entry = MergePatch.apply(step.patch, to: entry) }
        let oldest = try XCTUnwrap(Entry(jsonValue: entry))
        XCTAssertEqual(oldest.password, "old-pw")
        XCTAssertEqual(oldest.custom, [CustomField(id: pin.id, label: "PIN", value: "0000", type: .hidden)])
        XCTAssertNil(oldest.totp)
    }

    func testTimesInBothEncodings() {
        let rows: [(name: String, text: String?, expected: String?)] = [
            ("KDBX 4: base64 seconds since year 1", "pUBE2w4AAAA=", "2023-01-02T03:04:05.000Z"),
            ("KDBX 3.1: ISO 8601", "2023-01-02T03:04:05Z", "2023-01-02T03:04:05.000Z"),
            ("year 1 itself", "AAAAAAAAAAA=", "0001-01-01T00:00:00.000Z"),
            ("the largest seconds: past year 9999, absent", "////////f/8=", nil),
            ("a second before year 1: year 0, kept", "//////////8=", "0000-12-31T23:59:59.000Z"),
            ("the smallest seconds: overflow, absent", "AAAAAAAAAIA=", nil),
            ("not a time", "soon", nil),
            ("empty", "", nil),
            ("missing", nil, nil),
        ]
        for row in rows {
            XCTAssertEqual(KeePassXCXML.time(row.text)?.iso8601, row.expected, row.name)
        }
    }

    /// Files a stranger could hand over: each refused with one sentence naming the file, nothing parsed further.
    func testHostileAndMalformedFilesAreRefusedWithOneSentence() {
        let cut = String(ImportFixtures.keepassxcXML.prefix(2_000))
        let rows: [(name: String, data: Data, expected: String)] = [
            ("billion laughs (internal entities)", Data(HostileXML.billionLaughs.utf8),
             "kp.xml has a document type or entity declaration (<!…>), which a KeePass export never has"),
            ("an external entity naming a local file", Data(HostileXML.externalEntity.utf8),
             "kp.xml has a document type or entity declaration (<!…>), which a KeePass export never has"),
            ("a DTD declared through a UTF-7 encoding", Data(HostileXML.utf7.utf8),
             "kp.xml declares the encoding \"UTF-7\"; only UTF-8 is read"),
            ("UTF-7 declared after 600 spaces", Data(("<?xml version=\"1.0\"" + String(repeating: " ", count: 600)
                                                      + "encoding=\"UTF-7\"?><KeePassFile/>").utf8),
             "kp.xml declares the encoding \"UTF-7\"; only UTF-8 is read"),
            ("UTF-7 declared after newlines around =", Data("<?xml version=\"1.0\" encoding\r\n=\n'UTF-7'?><KeePassFile/>".utf8),
             "kp.xml declares the encoding \"UTF-7\"; only UTF-8 is read"),
            ("a declaration that never ends", Data(("<?xml version=\"1.0\"" + String(repeating: " ", count: 5_000)
                                                   + "encoding=\"UTF-7\"?><KeePassFile/>").utf8),
             "kp.xml has an XML declaration that does not end (no \"?>\" in its first 4096 bytes)"),
            ("UTF-16", HostileXML.utf16, "kp.xml is not a UTF-8 XML file (it holds NUL bytes)"),
            ("invalid UTF-8", Data([0x3C, 0x61, 0xC3, 0x28, 0x3E]), "kp.xml is not valid UTF-8"),
            ("empty", Data(), "kp.xml is empty"),
            ("nesting 100,000 deep", Data(HostileXML.deep(100_000).utf8), "kp.xml nests elements more than 100 deep"),
            ("nesting 101 deep", Data(HostileXML.deep(101).utf8), "kp.xml nests elements more than 100 deep"),
            ("an attribute of 20 MB", Data(HostileXML.hugeAttribute(20_000_000).utf8), "kp.xml is not well-formed XML (line 1)"),
            ("cut off", Data(cut.utf8), "kp.xml is not well-formed XML (line \(cut.split(separator: "\n").count))"),
            ("notes of 12 MB: over libxml2's limit for a text", Data(HostileXML.entry(notes: 12_000_000).utf8),
             "kp.xml has a value too long for the XML reader (over 10 MB, line 1)"),
            ("mismatched tags", Data("<KeePassFile><Root></KeePassFile>".utf8), "kp.xml is not well-formed XML (line 1)"),
            ("another root element", Data("<html><body/></html>".utf8),
             "kp.xml is not a KeePass XML export: its first element is <html>, not <KeePassFile>"),
            ("not XML at all", Data("Title,Username\na,b\n".utf8), "kp.xml is not well-formed XML (line 1)"),
            ("values encrypted with the database's stream key", Data(HostileXML.protectedValue.utf8),
             "kp.xml holds encrypted values (Protected=\"True\"); export the database with keepassxc-cli export --format xml"),
            ("an entry with 1,001 strings", Data(HostileXML.entry(strings: 1_001).utf8), "kp.xml has an entry with more than 1000 fields"),
        ]
        for row in rows {
            XCTAssertThrowsError(try KeePassXCXML.read(row.data, file: "kp.xml"), row.name) { error in
                XCTAssertEqual(message(error), row.expected, row.name)
            }
        }
    }

    /// Limits that keep the file: 100 deep is allowed; of a long history, the newest 100 versions.
    func testLimitsThatKeepTheFile() throws {
        XCTAssertNoThrow(try KeePassXCXML.read(Data(HostileXML.deep(100).utf8), file: "kp.xml"))
        let versions = (0..<150).map { "<Entry><String><Key>Password</Key><Value>pw\($0)</Value></String></Entry>" }.joined()
        let text = "<KeePassFile><Root><Group><Name>R</Name><Entry><String><Key>Title</Key><Value>t</Value></String>"
            + "<String><Key>Password</Key><Value>now</Value></String><History>\(versions)</History></Entry></Group></Root></KeePassFile>"
        let items = try ImportDraft.items(try KeePassXCXML.drafts(Data(text.utf8), file: "kp.xml"), file: "kp.xml", now: now)
        XCTAssertEqual(items[0].history.count, 100)
        XCTAssertEqual(items[0].history.first?.patch, .object(["password": .string("pw149")]))
        XCTAssertEqual(items[0].history.last?.patch, .object(["password": .string("pw50")]))
    }

    /// A custom value the vault cannot hold refuses the file naming the entry and the field.
    func testAnOverlongCustomFieldNamesTheEntryAndField() {
        let text = "<KeePassFile><Root><Group><Name>R</Name><Entry><String><Key>Title</Key><Value>Cert holder</Value></String>"
            + "<String><Key>Certificate</Key><Value>\(String(repeating: "A", count: 10_001))</Value></String></Entry></Group></Root></KeePassFile>"
        XCTAssertThrowsError(try ImportDraft.items(try KeePassXCXML.drafts(Data(text.utf8), file: "kp.xml"), file: "kp.xml", now: now)) {
            XCTAssertEqual(message($0), #"kp.xml entry 1 (Cert holder): custom field "Certificate" value is 10001 characters long, the limit is 10000"#)
        }
    }
}

/// Inputs an attacker could write, shared with `FuzzRegressionTests`.
enum HostileXML {
    static let billionLaughs = """
        <?xml version="1.0"?>
        <!DOCTYPE KeePassFile [
          <!ENTITY a "aaaaaaaaaa">
          <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
          <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
          <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
          <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
          <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
          <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
          <!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">
          <!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;">
        ]>
        <KeePassFile><Root><Group><Name>R</Name><Entry><String><Key>Title</Key><Value>&i;</Value></String></Entry></Group></Root></KeePassFile>
        """

    static let externalEntity = """
        <?xml version="1.0"?>
        <!DOCTYPE KeePassFile [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
        <KeePassFile><Root><Group><Name>R</Name><Entry><String><Key>Title</Key><Value>&secret;</Value></String></Entry></Group></Root></KeePassFile>
        """

    /// `<!DOCTYPE …>` written in UTF-7, which has no `<!` byte pair for a scan to find.
    static let utf7 = """
        <?xml version="1.0" encoding="UTF-7"?>
        +ADw-+ACE-DOCTYPE KeePassFile +AFs-+ADw-+ACE-ENTITY a SYSTEM +ACI-file:///etc/passwd+ACI-+AD4-+AF0-+AD4-
        <KeePassFile/>
        """

    static var utf16: Data {
        var data = Data([0xFF, 0xFE])
        for unit in "<?xml version=\"1.0\" encoding=\"UTF-16\"?><KeePassFile/>".utf16 {
            data.append(UInt8(unit & 0xFF))
            data.append(UInt8(unit >> 8))
        }
        return data
    }

    static let protectedValue = """
        <KeePassFile><Root><Group><Name>R</Name><Entry><String><Key>Password</Key><Value Protected="True">c2VjcmV0</Value></String>\
        </Entry></Group></Root></KeePassFile>
        """

    /// `<KeePassFile>` holding `depth - 1` nested elements.
    static func deep(_ depth: Int) -> String {
        "<KeePassFile>" + String(repeating: "<a>", count: depth - 1) + String(repeating: "</a>", count: depth - 1) + "</KeePassFile>"
    }

    static func hugeAttribute(_ length: Int) -> String {
        "<KeePassFile a=\"" + String(repeating: "x", count: length) + "\"/>"
    }

    static func entry(notes length: Int) -> String {
        "<KeePassFile><Root><Group><Name>R</Name><Entry><String><Key>Notes</Key><Value>"
            + String(repeating: "n", count: length) + "</Value></String></Entry></Group></Root></KeePassFile>"
    }

    static func entry(strings: Int) -> String {
        let fields = (0..<strings).map { "<String><Key>k\($0)</Key><Value>v</Value></String>" }.joined()
        return "<KeePassFile><Root><Group><Name>R</Name><Entry>\(fields)</Entry></Group></Root></KeePassFile>"
    }
}
