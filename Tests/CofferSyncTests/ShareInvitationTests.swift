import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// What the two sides of a `share` invitation hand each other (architecture §17): the joining
/// person's card and the inviter's grant. They come from someone who passed the compared number,
/// and are still read as a stranger's: every field of the wrong form is `tampered`.
final class ShareInvitationTests: XCTestCase {
    private let keys = PersonKeys()

    /// A card's members as Coffer writes them, for the rows to change one at a time.
    private var cardObject: [String: Any] {
        ["name": "Ann Example", "account": "ann@example.org",
         "signing_key": keys.signingPublicKey.base64EncodedString(), "sealing_key": keys.sealingPublicKey.base64EncodedString()]
    }

    private let grantObject: [String: Any] = [
        "vault": SharedVaultID.random().bucket, "name": "family", "position": 3,
        "hash": Data(repeating: 0xab, count: 32).base64EncodedString(),
    ]

    private func json(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    }

    private func changed(_ object: [String: Any], _ key: String, to value: Any?) throws -> Data {
        var object = object
        object[key] = value
        return try json(object)
    }

    private func assertTampered(_ body: @autoclosure () throws -> some Any, _ message: String, line: UInt = #line) {
        XCTAssertThrowsError(try body(), message, line: line) {
            XCTAssertEqual($0 as? InvitationError, .tampered, message, line: line)
        }
    }

    // MARK: The card

    func testACardGivesBackThePerson() throws {
        let ann = try keys.person(name: "Ann Example", account: "ann@example.org")
        XCTAssertEqual(try ShareInvitation.person(fromCard: ShareInvitation.card(for: ann)), ann)
        // Names are whatever the person typed: escapes, emoji, 200 bytes.
        for name in ["Ann \"the admin\" O'Neil\n\t\\", "Zoë 🔑", String(repeating: "é", count: 100)] {
            let person = try keys.person(name: name, account: "a-b_c.d@e")
            XCTAssertEqual(try ShareInvitation.person(fromCard: ShareInvitation.card(for: person)), person, name)
        }
        XCTAssertEqual(try ShareInvitation.person(fromCard: json(cardObject)).id, keys.id)
    }

    func testHostileCardsAreRefused() throws {
        let card = cardObject
        let key31 = Data(repeating: 1, count: 31).base64EncodedString(), key33 = Data(repeating: 1, count: 33).base64EncodedString()
        var rows: [(String, Data)] = [
            ("empty", Data()),
            ("not JSON", Data("Ann".utf8)),
            ("an array", try json([card])),
            ("a string", try json("Ann")),
            ("null", Data("null".utf8)),
            ("a name that is a number", try changed(card, "name", to: 5)),
            ("an account that is true", try changed(card, "account", to: true)),
            ("a key that is null", try changed(card, "signing_key", to: NSNull())),
            ("a key that is an array", try changed(card, "sealing_key", to: [1, 2])),
            ("a signing key not base64", try changed(card, "signing_key", to: "not base64!")),
            ("a sealing key not base64", try changed(card, "sealing_key", to: "AAA")),
            ("a signing key of 31 bytes", try changed(card, "signing_key", to: key31)),
            ("a sealing key of 33 bytes", try changed(card, "sealing_key", to: key33)),
            ("an empty key", try changed(card, "sealing_key", to: "")),
            ("a name with NUL", try changed(card, "name", to: "Ann\u{0}Admin")),
            ("an empty name", try changed(card, "name", to: "")),
            ("a name of 201 bytes", try changed(card, "name", to: String(repeating: "a", count: 201))),
            ("an account with a slash", try changed(card, "account", to: "ann/../bob")),
            ("an account with a space", try changed(card, "account", to: "ann example")),
            ("an account with a colon", try changed(card, "account", to: "account:ann")),
            ("an empty account", try changed(card, "account", to: "")),
            ("an account of 201 bytes", try changed(card, "account", to: String(repeating: "a", count: 201))),
        ]
        for member in card.keys.sorted() {
            rows.append(("without \(member)", try changed(card, member, to: nil)))
        }
        for (name, data) in rows {
            assertTampered(try ShareInvitation.person(fromCard: data), name)
        }
    }

    /// At most 2048 bytes, whitespace included: the bound is on what arrives, not on what it says.
    func testACardHasASizeBound() throws {
        let card = try json(cardObject)
        let padding = { (total: Int) in card + Data(repeating: UInt8(ascii: " "), count: total - card.count) }
        XCTAssertEqual(try ShareInvitation.person(fromCard: padding(2048)).id, keys.id)
        assertTampered(try ShareInvitation.person(fromCard: padding(2049)), "2049 bytes")
    }

    // MARK: The grant

    func testAGrantGivesBackWhatTheInviterWrote() throws {
        let vault = SharedVaultID.random()
        for (name, position) in [("family", 0), ("Work_2", 1), (String(repeating: "v", count: 64), RosterChain.entryLimit - 1)] {
            let grant = ShareInvitation.Grant(vaultID: vault, name: name,
                                              head: RosterHead(position: position, hash: Data((0..<32).map { UInt8($0) })))
            XCTAssertEqual(try ShareInvitation.Grant(json: grant.json), grant, name)
        }
        let read = try ShareInvitation.Grant(json: json(grantObject))
        XCTAssertEqual(read.vaultID.bucket, grantObject["vault"] as? String)
        XCTAssertEqual(read.name, "family")
        XCTAssertEqual(read.head, RosterHead(position: 3, hash: Data(repeating: 0xab, count: 32)))
    }

    func testHostileGrantsAreRefused() throws {
        let grant = grantObject
        let bucket = try XCTUnwrap(grant["vault"] as? String)
        var rows: [(String, Data)] = [
            ("empty", Data()),
            ("not JSON", Data("family".utf8)),
            ("an array", try json([grant])),
            ("a vault that is not an id", try changed(grant, "vault", to: "default")),
            ("a vault id in upper case", try changed(grant, "vault", to: bucket.uppercased())),
            ("a vault id a symbol short", try changed(grant, "vault", to: String(bucket.dropLast()))),
            ("a vault id that is a number", try changed(grant, "vault", to: 42)),
            ("a name up the tree", try changed(grant, "name", to: "../x")),
            ("a name like an option", try changed(grant, "name", to: "-x")),
            ("a name of 65 characters", try changed(grant, "name", to: String(repeating: "v", count: 65))),
            ("a name with a slash", try changed(grant, "name", to: "a/b")),
            ("an empty name", try changed(grant, "name", to: "")),
            ("a name that is a number", try changed(grant, "name", to: 7)),
            ("a negative position", try changed(grant, "position", to: -1)),
            ("position 10,000", try changed(grant, "position", to: RosterChain.entryLimit)),
            ("a position too large for Int", try changed(grant, "position", to: 1e300)),
            ("a fractional position", try changed(grant, "position", to: 3.5)),
            ("a position in a string", try changed(grant, "position", to: "3")),
            ("a position that is null", try changed(grant, "position", to: NSNull())),
            ("a hash of 31 bytes", try changed(grant, "hash", to: Data(count: 31).base64EncodedString())),
            ("a hash of 33 bytes", try changed(grant, "hash", to: Data(count: 33).base64EncodedString())),
            ("a hash not base64", try changed(grant, "hash", to: "#")),
            ("over 2048 bytes", try json(grant) + Data(repeating: UInt8(ascii: " "), count: 2049)),
        ]
        for member in grant.keys.sorted() {
            rows.append(("without \(member)", try changed(grant, member, to: nil)))
        }
        for (name, data) in rows {
            assertTampered(try ShareInvitation.Grant(json: data), name)
        }
    }

    // MARK: The vault's name

    func testSharedVaultNames() {
        let valid = ["a", "Z", "0", "family", "Work_2", "a-b", "_x", "x-", String(repeating: "v", count: 64)]
        let invalid = ["", "-x", "--vault", "../x", "x/y", "a b", "x.db", ".hidden", "Zoë", "a\u{0}", "a\n",
                       String(repeating: "v", count: 65)]
        for name in valid { XCTAssertTrue(SharedVaultName.isValid(name), name.debugDescription) }
        for name in invalid { XCTAssertFalse(SharedVaultName.isValid(name), name.debugDescription) }
    }

    func testASharedVaultLiesBesideThePersonalOne() {
        let rows: [(personal: String, expected: String)] = [
            ("/home/ann/.local/share/coffer/vault.db", "/home/ann/.local/share/coffer/family.db"),
            ("/srv/vaults/personal.sqlite", "/srv/vaults/family.db"),
            ("/vault.db", "/family.db"),
            ("vault.db", "family.db"),
            ("dir/vault.db", "dir/family.db"),
        ]
        for (personal, expected) in rows {
            XCTAssertEqual(SharedVaultName.path(of: "family", besidePersonalVault: personal), expected, personal)
        }
    }
}
