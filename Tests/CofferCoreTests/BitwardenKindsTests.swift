import CofferCore
import Foundation
import XCTest

/// Issue 30's Bitwarden table: each item type, with custom fields of each type, becomes exactly
/// these kinds, kind fields, custom fields and notes; what the vault would refuse from a foreign
/// file either moves to the notes (an expiry) or refuses the file naming it.
final class BitwardenKindsTests: XCTestCase {
    private let now = Timestamp(milliseconds: 1_800_000_000_000)

    private struct Row {
        let name: String
        /// One element of the export's `items`.
        let item: String
        var kind = "login"
        var username = ""
        var password = ""
        var fields: [String: String] = [:]
        /// Label, value and type of each custom field, in order.
        var custom: [[String]] = []
        var notes = ""
    }

    /// Bitwarden's custom fields of every type: text, hidden, boolean, linked, and one of a type
    /// this version does not know.
    private let allFieldTypes = """
        "fields": [{"name": "colour", "value": "blue", "type": 0, "linkedId": null},
                   {"name": "PIN", "value": "1234", "type": 1, "linkedId": null},
                   {"name": "Verified", "value": "true", "type": 2, "linkedId": null},
                   {"name": "Login name", "value": null, "type": 3, "linkedId": 100},
                   {"name": "", "value": "unnamed", "type": 0},
                   {"name": "Future", "value": "7", "type": 9}]
        """
    private let allFieldTypesCustom = [["colour", "blue", "text"], ["PIN", "1234", "hidden"], ["Verified", "true", "text"],
                                       ["Field", "unnamed", "text"], ["Future", "7", "text"]]

    private var rows: [Row] {
        [
            Row(name: "login: its fields as before, Bitwarden's custom fields as custom fields, a linked one in the notes",
                item: #"{"type": 1, "name": "Login", "login": {"username": "ann", "password": "pw"}, \#(allFieldTypes)}"#,
                username: "ann", password: "pw", custom: allFieldTypesCustom, notes: "Linked field Login name: Username"),
            Row(name: "secure note: kind note, no type line",
                item: #"{"type": 2, "name": "Note", "notes": "text", "secureNote": {"type": 0}, "fields": [{"name": "a", "value": "b", "type": 0}]}"#,
                kind: "note", custom: [["a", "b", "text"]], notes: "text"),
            Row(name: "card: every member in its field, the brand a custom field, a zero-padded month and two-digit year normalised",
                item: """
                    {"type": 3, "name": "Visa", "card": {"cardholderName": "Zoé Doe", "brand": "Visa", "number": "4111111111111111",
                     "expMonth": "07", "expYear": "30", "code": "123"}, \(allFieldTypes)}
                    """,
                kind: "card",
                fields: ["cardholder": "Zoé Doe", "number": "4111111111111111", "expiry_month": "7", "expiry_year": "2030", "code": "123"],
                custom: [["Brand", "Visa", "text"]] + allFieldTypesCustom, notes: "Linked field Login name: Username"),
            Row(name: "card with a month 13: the month goes to the notes, the file is not refused",
                item: #"{"type": 3, "name": "Odd card", "card": {"number": "4222", "expMonth": "13", "expYear": "2031"}}"#,
                kind: "card", fields: ["number": "4222", "expiry_year": "2031"], notes: "Expiry month: 13"),
            Row(name: "card with a three-digit year and an unknown member: both in the notes",
                item: #"{"type": 3, "name": "Old card", "card": {"number": "4333", "expMonth": "1", "expYear": "203", "network": "X"}}"#,
                kind: "card", fields: ["number": "4333", "expiry_month": "1"], notes: "Network: X\nExpiry year: 203"),
            Row(name: "identity: every member in its field, address lines joined, title and username custom fields",
                item: """
                    {"type": 4, "name": "Me", "identity": {"title": "Ms", "firstName": "Zoé", "middleName": "A", "lastName": "Doe",
                     "address1": "1 Main St", "address2": "Flat 2", "address3": null, "city": "Lyon", "state": "Rhône",
                     "postalCode": "69001", "country": "FR", "company": "ACME", "email": "zoe@example.org", "phone": "+33 1",
                     "ssn": "123-45", "username": "zoed", "passportNumber": "P123", "licenseNumber": "L456"},
                     "fields": [{"name": "Blood type", "value": "O+", "type": 0}]}
                    """,
                kind: "identity",
                fields: ["first_name": "Zoé", "middle_name": "A", "last_name": "Doe", "address": "1 Main St, Flat 2", "city": "Lyon",
                         "region": "Rhône", "postal_code": "69001", "country": "FR", "company": "ACME", "email": "zoe@example.org",
                         "phone": "+33 1", "national_id": "123-45", "passport": "P123", "license": "L456"],
                custom: [["Title", "Ms", "text"], ["Username", "zoed", "text"], ["Blood type", "O+", "text"]]),
            Row(name: "SSH key Coffer cannot read: a secure note, the private key a hidden custom field",
                item: """
                    {"type": 5, "name": "Server key", "sshKey": {"privateKey": "-----BEGIN OPENSSH PRIVATE KEY-----\\nAAA\\n-----END OPENSSH PRIVATE KEY-----",
                     "publicKey": "ssh-ed25519 AAAA", "keyFingerprint": "SHA256:xyz"}, "fields": [{"name": "Host", "value": "a.example", "type": 0}]}
                    """,
                kind: "note",
                custom: [["Private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nAAA\n-----END OPENSSH PRIVATE KEY-----", "hidden"],
                         ["Public key", "ssh-ed25519 AAAA", "text"], ["Fingerprint", "SHA256:xyz", "text"], ["Host", "a.example", "text"]],
                notes: "Type: SSH key"),
            Row(name: "a boolean written as JSON true, a hidden field with no value",
                item: #"{"type": 1, "name": "Flags", "login": {}, "fields": [{"name": "On", "value": true, "type": 2}, {"name": "Empty", "value": null, "type": 1}]}"#,
                custom: [["On", "true", "text"], ["Empty", "", "hidden"]]),
        ]
    }

    /// Issue 32: an SSH key whose private key is an OpenSSH key file (as Bitwarden keeps it) becomes
    /// an `ssh-key` item; the public key and fingerprint come from the key, not from the file.
    func testAnSSHKeyThatReadsBecomesAnSSHKeyItem() throws {
        let seed = try XCTUnwrap(try SeedCorpusTests.corpus("FuzzSSHAgent").first { $0.name == "keyfile-ed25519.txt" }).data
        let privateKey = String(decoding: seed.dropFirst(), as: UTF8.self)
        let item: [String: Any] = [
            "type": 5, "name": "Deploy", "notes": "for CI",
            "sshKey": ["privateKey": privateKey, "publicKey": "ssh-ed25519 WRONG", "keyFingerprint": "SHA256:wrong"],
            "fields": [["name": "Host", "value": "ci.example", "type": 0]],
        ]
        let file = try JSONSerialization.data(withJSONObject: ["encrypted": false, "items": [item]])
        let items = try ImportDraft.items(try BitwardenJSON.drafts(file, file: "bw.json"), file: "bw.json", now: now)
        let entry = try XCTUnwrap(items.first?.entry)
        XCTAssertEqual(entry.kind, "ssh-key")
        let key = try OpenSSHKeyFile.read(privateKey)
        XCTAssertEqual(entry.fields["public_key"], key.authorizedKey)
        XCTAssertEqual(entry.fields["fingerprint"], "SHA256:1Cby8N2SR3GIxIqu0V75PQTqOe08hJebvb05HldY8xI")
        XCTAssertEqual(entry.fields["comment"], "seed-ed25519")
        XCTAssertEqual(try SSHKey(item: try XCTUnwrap(items.first))?.publicKeyBlob, key.publicKeyBlob)
        XCTAssertEqual(entry.notes, "for CI")
        XCTAssertEqual(entry.custom.map(\.label), ["Host"])
    }

    func testEveryTypeWithCustomFieldsBecomesItsKindAndFields() throws {
        for row in rows {
            let file = #"{"encrypted": false, "items": [\#(row.item)]}"#
            let items: [Item]
            do {
                items = try ImportDraft.items(try BitwardenJSON.drafts(Data(file.utf8), file: "bw.json"), file: "bw.json", now: now)
            } catch {
                XCTFail("\(row.name): \(message(error))")
                continue
            }
            let entry = try XCTUnwrap(items.first?.entry, row.name)
            XCTAssertEqual(entry.kind, row.kind, row.name)
            XCTAssertEqual(entry.username, row.username, row.name)
            XCTAssertEqual(entry.password, row.password, row.name)
            XCTAssertEqual(entry.fields, row.fields, row.name)
            XCTAssertEqual(entry.custom.map { [$0.label, $0.value, $0.type] }, row.custom, row.name)
            XCTAssertEqual(entry.notes, row.notes, row.name)
            XCTAssertEqual(Set(entry.custom.map(\.id)).count, entry.custom.count, "\(row.name): custom field ids are unique")
        }
    }

    /// A value the vault cannot hold refuses the whole file, naming the record and each problem once.
    func testWhatTheVaultCannotHoldRefusesTheFileNamingEachProblem() {
        let long = String(repeating: "x", count: 10_001)
        let manyFields = (0..<101).map { #"{"name": "f\#($0)", "value": "v", "type": 0}"# }.joined(separator: ",")
        let cases: [(name: String, items: String, expected: String)] = [
            ("a custom value over 10,000 characters",
             #"{"type": 1, "name": "ok"}, {"type": 1, "name": "Big", "fields": [{"name": "Cert", "value": "\#(long)", "type": 1}]}"#,
             #"bw.json item 2 (Big): custom field "Cert" value is 10001 characters long, the limit is 10000"#),
            ("101 custom fields", #"{"type": 1, "name": "Many", "fields": [\#(manyFields)]}"#,
             "bw.json item 1 (Many): custom has 101 fields, the limit is 100"),
            ("a card number and a cardholder over 500 characters",
             #"{"type": 3, "name": "Card", "card": {"number": "\#(String(repeating: "4", count: 501))", "cardholderName": "\#(String(repeating: "a", count: 600))"}}"#,
             "bw.json item 1 (Card): cardholder is 600 characters long, the limit is 500, number is 501 characters long, the limit is 500"),
        ]
        for (name, items, expected) in cases {
            let file = #"{"encrypted": false, "items": [\#(items)]}"#
            XCTAssertThrowsError(try ImportDraft.items(try BitwardenJSON.drafts(Data(file.utf8), file: "bw.json"), file: "bw.json", now: now),
                                 name) { error in
                XCTAssertEqual(message(error), expected, name)
            }
        }
    }

    /// Two cards of one title are two items; the same card twice is one.
    func testDuplicatesCompareTheKindsFields() throws {
        let file = """
            {"encrypted": false, "items": [
              {"type": 3, "name": "Visa", "card": {"number": "4111"}}, {"type": 3, "name": "Visa", "card": {"number": "4222"}},
              {"type": 3, "name": "Visa", "card": {"number": "4111"}},
              {"type": 2, "name": "Note", "notes": "one"}, {"type": 2, "name": "Note", "notes": "two"},
              {"type": 1, "name": "Visa", "login": {}}]}
            """
        let items = try ImportDraft.items(try BitwardenJSON.drafts(Data(file.utf8), file: "bw.json"), file: "bw.json", now: now)
        let duplicates = ImportDuplicates(items, existing: [])
        XCTAssertEqual(duplicates.kept.map { $0.entry.fields["number"] ?? $0.entry.notes }, ["4111", "4222", "one", "two", ""])
        XCTAssertEqual(duplicates.skipped.map { $0.item.entry.fields["number"] }, ["4111"])
    }
}
