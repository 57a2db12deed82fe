import CofferCore
import CofferTestSupport
import Foundation
import XCTest

/// The foreign-format parsers on the golden files of `ImportFixtures`: field mapping, tags from
/// folders and groups, leftovers in the notes, times.
final class ImportParserTests: XCTestCase {
    private let now = Timestamp(milliseconds: 1_800_000_000_000)

    private func items(_ drafts: [ImportDraft], file: String = "f") throws -> [Item] {
        try ImportDraft.items(drafts, file: file, now: now)
    }

    func testFirefoxMapsColumnsAndKeepsTimesAndLeftovers() throws {
        let items = try items(try FirefoxCSV.drafts(Data(ImportFixtures.firefox.utf8), file: "logins.csv"))
        XCTAssertEqual(items.count, 2)
        let cafe = items[0]
        XCTAssertEqual(cafe.title, "café.example", "the host is the title")
        XCTAssertEqual(cafe.origins, ["https://café.example"])
        XCTAssertEqual(cafe.entry.username, "ünï")
        XCTAssertEqual(cafe.entry.password, "pa,ss\"word")
        XCTAssertEqual(cafe.created, Timestamp(milliseconds: 1_600_000_000_000))
        XCTAssertEqual(cafe.modified, Timestamp(milliseconds: 1_650_000_000_000))
        XCTAssertEqual(cafe.lastUsed, Timestamp(milliseconds: 1_700_000_000_000))
        XCTAssertEqual(cafe.entry.notes, "", "a form origin equal to the url is not repeated")
        let japan = items[1]
        XCTAssertEqual(japan.title, "日本.example")
        XCTAssertEqual(japan.entry.password, "multi\nline password")
        XCTAssertEqual(japan.entry.notes, "HTTP realm: Realm 日本\nForm action origin: https://login.日本.example")
        XCTAssertEqual(japan.created, Timestamp(milliseconds: 1_600_000_000_123))
        XCTAssertEqual(japan.modified, japan.created, "no change time: modified is created")
        XCTAssertNil(japan.lastUsed)
    }

    func testChromeMapsColumnsAndReadsALastRowWithoutNewline() throws {
        let items = try items(try ChromeCSV.drafts(Data(ImportFixtures.chrome.utf8), file: "chrome.csv"))
        XCTAssertEqual(items.map(\.title), ["café.example", "日本"])
        XCTAssertEqual(items[0].origins, ["https://café.example/login"])
        XCTAssertEqual(items[0].entry.username, "ünï")
        XCTAssertEqual(items[0].entry.password, "p,w\"1")
        XCTAssertEqual(items[0].entry.notes, "line one\nline two, with a comma")
        XCTAssertEqual(items[0].created, now)
        XCTAssertEqual(items[1].entry.password, "")
        XCTAssertEqual(items[1].entry.notes, "")
    }

    func testKeePassXCGroupsBecomeTagsBelowTheRoot() throws {
        let items = try items(try KeePassXCCSV.drafts(Data(ImportFixtures.keepassxc.utf8), file: "kp.csv"))
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(items[0].title, "Café ☕")
        XCTAssertEqual(items[0].tags, ["Work", "Servers"])
        XCTAssertEqual(items[0].entry.password, "pa\"ss,word")
        XCTAssertEqual(items[0].origins, ["https://café.example"])
        XCTAssertEqual(items[0].entry.notes, "line 1\nline 2")
        XCTAssertEqual(items[0].entry.totp, ImportFixtures.totpURI)
        XCTAssertEqual(items[0].created, Timestamp(iso8601: "2023-01-02T03:04:05Z"))
        XCTAssertEqual(items[0].modified, Timestamp(iso8601: "2024-02-03T04:05:06Z"))
        XCTAssertEqual(items[1].tags, [], "the root group alone gives no tag")
        XCTAssertEqual(items[1].entry.notes, "Icon: 12", "a non-default icon is kept")
    }

    func testOnePasswordTagsArchivedAndFavorite() throws {
        let items = try items(try OnePasswordCSV.drafts(Data(ImportFixtures.onePassword.utf8), file: "1p.csv"))
        XCTAssertEqual(items.map(\.title), ["Café, ☕", "日本"])
        XCTAssertEqual(items[0].tags, ["Work", "東京"])
        XCTAssertEqual(items[0].entry.totp, ImportFixtures.totpURI)
        XCTAssertEqual(items[0].entry.password, "pw\"1")
        XCTAssertEqual(items[0].entry.notes, "note\ntwo\n\nFavorite: yes")
        XCTAssertFalse(items[0].disabled)
        XCTAssertTrue(items[1].disabled, "archived items are imported disabled")
    }

    func testBitwardenKeepsEveryTypeAndEveryMember() throws {
        let items = try items(try BitwardenJSON.drafts(Data(ImportFixtures.bitwarden.utf8), file: "bw.json"))
        XCTAssertEqual(items.map(\.title), ["Café ☕", "日本 note", "Visa", "Me"])
        let login = items[0]
        XCTAssertEqual(login.tags, ["Work", "Servers"])
        XCTAssertEqual(login.origins, ["https://café.example", "https://login.café.example"])
        XCTAssertEqual(login.entry.username, "ünï")
        XCTAssertEqual(login.entry.password, "new-pw")
        XCTAssertEqual(login.entry.totp, ImportFixtures.totpURI)
        XCTAssertEqual(login.entry.notes, "login note, with \"quotes\"\nand a second line\n\nFavorite: yes\n"
                       + "URI match for https://login.café.example: 3")
        XCTAssertEqual(login.entry.custom.map { [$0.label, $0.value, $0.type] }, [["PIN", "1234", "hidden"], ["colour", "blue", "text"]])
        XCTAssertEqual(login.created, Timestamp(iso8601: "2022-01-01T00:00:00.000Z"))
        XCTAssertEqual(login.modified, Timestamp(iso8601: "2024-06-01T12:00:00.123Z"))
        XCTAssertEqual(login.history.map(\.patch), [.object(["password": .string("old-pw")]), .object(["password": .string("older-pw")])],
                       "password history, newest first")
        XCTAssertEqual(items[1].tags, ["東京"])
        XCTAssertEqual(items[1].entry.kind, "note")
        XCTAssertEqual(items[1].entry.notes, "secret note")
        XCTAssertEqual(items[2].entry.kind, "card")
        XCTAssertEqual(items[2].entry.fields, ["cardholder": "Zoé Doe", "number": "4111111111111111", "expiry_month": "12",
                                               "expiry_year": "2030", "code": "123"])
        XCTAssertEqual(items[2].entry.custom.map { [$0.label, $0.value] }, [["Brand", "Visa"]])
        XCTAssertEqual(items[2].entry.notes, "")
        XCTAssertEqual(items[3].entry.kind, "identity")
        XCTAssertEqual(items[3].entry.fields, ["first_name": "Zoé", "last_name": "Doe", "email": "zoe@example.org"])
        XCTAssertEqual(items[3].entry.custom.map { [$0.label, $0.value] }, [["Title", "Ms"]])
        XCTAssertEqual(items[3].entry.notes, "")
    }

    func testBitwardenOfTheWrongShapeIsRefusedNamingTheRecord() {
        let cases: [(String, String)] = [
            ("[]", "bw.json is not a Bitwarden export"),
            (#"{"items": {}}"#, "no \"items\" array"),
            (#"{"encrypted": true, "items": []}"#, "encrypted"),
            (#"{"items": [{"type": 1, "name": "a"}, {"type": 1}]}"#, "bw.json item 2: \"name\""),
            (#"{"items": [{"type": 9, "name": "odd"}]}"#, "bw.json item 1 (odd): \"type\""),
            (#"{"items": [{"#, "not valid JSON"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try BitwardenJSON.drafts(Data(text.utf8), file: "bw.json"), text) { error in
                XCTAssertTrue(message(error).contains(expected), "\(text): \(message(error))")
            }
        }
    }

    func testPassEntryLinesFillFields() {
        let text = "s3cr3t ☕\nlogin: ünï\nURL: https://café.example\n\(ImportFixtures.totpURI)\nemail: second@example.org\nfree text, 日本\n"
        let draft = PassEntry.draft(path: "web/shop/café.gpg", text: text, modified: Timestamp(milliseconds: 5))
        XCTAssertEqual(draft.title, "web/shop/café")
        XCTAssertEqual(draft.tags, ["web", "shop"])
        XCTAssertEqual(draft.password, "s3cr3t ☕")
        XCTAssertEqual(draft.username, "ünï")
        XCTAssertEqual(draft.origins, ["https://café.example"])
        XCTAssertEqual(draft.totp, ImportFixtures.totpURI)
        XCTAssertEqual(draft.notes, "email: second@example.org\nfree text, 日本", "a second username line stays in the notes")
        XCTAssertEqual(draft.modified, Timestamp(milliseconds: 5))
    }

    func testUnreadableTOTPAndOverlongNotesAreNotLost() throws {
        var draft = ImportDraft(place: "line 2")
        draft.title = "t"
        draft.totp = "not a secret!"
        XCTAssertEqual(try items([draft]).first?.entry.notes, "TOTP: not a secret!")
        draft.notes = String(repeating: "n", count: 10_001)
        XCTAssertThrowsError(try items([draft], file: "x.csv")) { error in
            XCTAssertTrue(message(error).hasPrefix("x.csv line 2: notes is 10"), message(error))
        }
    }

    func testExportCSVQuotesEveryFieldAndReadsBack() throws {
        let item = Item(title: "Café, \"quoted\"", origins: ["https://a.example", "b.example"], tags: ["Work", "東京"],
                        entry: Entry(username: "ünï", password: "p,w", notes: "line 1\nline 2", totp: ImportFixtures.totpURI),
                        created: Timestamp(milliseconds: 1_000), modified: Timestamp(milliseconds: 2_000))
        let text = ItemCSV.text([item])
        XCTAssertTrue(text.hasPrefix("\"title\",\"username\",\"password\",\"url\",\"origins\",\"tags\",\"notes\",\"totp\",\"created\",\"modified\",\"kind\",\"fields\"\r\n"))
        let table = try CSVTable(Data(text.utf8), file: "out.csv")
        XCTAssertEqual(table.header, ItemCSV.header)
        XCTAssertEqual(table.rows.map(\.values), [[
            "Café, \"quoted\"", "ünï", "p,w", "https://a.example", "https://a.example b.example", "Work, 東京", "line 1\nline 2",
            ImportFixtures.totpURI, "1970-01-01T00:00:01.000Z", "1970-01-01T00:00:02.000Z", "login", "",
        ]])
    }

    /// A card's fields and custom fields have no column of their own: they are in `fields`, not lost.
    func testExportCSVKeepsAKindsFieldsAndCustomFields() throws {
        let card = Item(title: "Visa", entry: Entry(kind: "card", fields: ["number": "4111", "cardholder": "A. Person", "later": "x"],
                                                    custom: [CustomField(label: "Bank", value: "ACME, Inc.")]),
                        created: Timestamp(milliseconds: 1_000))
        let table = try CSVTable(Data(ItemCSV.text([card]).utf8), file: "out.csv")
        XCTAssertEqual(table.rows.first?.values.suffix(2), ["card", "Cardholder: A. Person\nNumber: 4111\nlater: x\nBank: ACME, Inc."])
    }
}

/// The message a refused import shows (its `reason`).
func message(_ error: Error) -> String {
    if case CoreError.invalidImport(let reason) = error { return reason }
    return "\(error)"
}
