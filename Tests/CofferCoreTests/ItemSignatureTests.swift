import Foundation
import XCTest
@testable import CofferCore

/// A shared vault's item versions carry their writer's signature (issue 42): only a member of
/// the roster the checker was given passes, and every part a device keeps of a version is covered.
final class ItemSignatureTests: XCTestCase {
    private func record(_ id: String = Item.newID()) -> ItemRecord {
        ItemRecord(id: id, isActive: true, originHashes: ["aa", "bb"], tagHashes: ["cc"], encrypted: "AQID", lastModified: 7)
    }

    func testAMembersSignatureVerifiesAndNamesThem() throws {
        let chain = try RosterChainBuilder.family()
        let checker = ItemSignature.Checker(vaultID: chain.vault, members: chain.state.members)
        let signed = try ItemSignature.signed(record(), as: RosterPeople.bob, in: chain.vault)
        XCTAssertEqual(checker.verdict(signed), .member(RosterPeople.bob.id))
        XCTAssertEqual(checker.verdict(record()), .unsigned)
        // The server's timestamp is not signed: Kinto stamps every write anew.
        var restamped = signed
        restamped.lastModified = 99
        XCTAssertEqual(checker.verdict(restamped), .member(RosterPeople.bob.id))
    }

    func testEveryPartOfTheVersionIsCovered() throws {
        let chain = try RosterChainBuilder.family()
        let checker = ItemSignature.Checker(vaultID: chain.vault, members: chain.state.members)
        let signed = try ItemSignature.signed(record(), as: RosterPeople.alice, in: chain.vault)
        let changes: [(String, (inout ItemRecord) -> Void)] = [
            ("id", { $0.id = Item.newID() }),
            ("active", { $0.isActive = false }),
            ("origins", { $0.originHashes = ["aa"] }),
            ("origins order", { $0.originHashes = ["bb", "aa"] }),
            ("tags", { $0.tagHashes = [] }),
            ("a tag moved to the origins", { $0.originHashes += ["cc"]; $0.tagHashes = [] }),
            ("ciphertext", { $0.encrypted = "AQIE" }),
            ("signature cut", { $0.signature = String($0.signature!.dropLast(4)) }),
            ("signature not base64", { $0.signature = "%%%" }),
            ("signature too long", { $0.signature = Data(repeating: 1, count: 4096).base64EncodedString() }),
        ]
        for (name, change) in changes {
            var changed = signed
            change(&changed)
            XCTAssertEqual(checker.verdict(changed), .forged, name)
        }
        // Another vault's signature by the same member does not carry over.
        let elsewhere = try ItemSignature.signed(record(signed.id), as: RosterPeople.alice, in: .random())
        var moved = signed
        moved.signature = elsewhere.signature
        XCTAssertEqual(checker.verdict(moved), .forged)
    }

    func testSomeoneTheRosterDoesNotListNowIsRefused() throws {
        var chain = try RosterChainBuilder.family()
        let before = ItemSignature.Checker(vaultID: chain.vault, members: chain.state.members)
        let carols = try ItemSignature.signed(record(), as: RosterPeople.carol, in: chain.vault)
        XCTAssertEqual(before.verdict(carols), .member(RosterPeople.carol.id))
        try chain.append(.remove(personID: RosterPeople.carol.id), by: RosterPeople.alice)
        let after = ItemSignature.Checker(vaultID: chain.vault, members: chain.state.members)
        XCTAssertEqual(after.verdict(carols), .forged, "a removed member's signature, whenever it was made")
        XCTAssertEqual(after.verdict(try ItemSignature.signed(record(), as: RosterPeople.mallory, in: chain.vault)), .forged)
    }

    /// The member is written between `origins` and `tags` (sorted, as `JSONEncoder` would), read
    /// back by both readers, and skipped by a reader that does not know it (an older version's,
    /// `MemberLoop`), which then writes the version without it.
    func testTheSignatureRoundTripsAndOlderReadersSkipIt() throws {
        let chain = try RosterChainBuilder.family()
        let signed = try ItemSignature.signed(record(), as: RosterPeople.bob, in: chain.vault)
        let text = ItemRecordJSON.encode(signed)
        XCTAssertTrue(text.contains(#""origins":["aa","bb"],"signature":""#), text)
        XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: text), signed)
        XCTAssertEqual(try JSONDecoder().decode(ItemRecord.self, from: Data(text.utf8)), signed)
        var older = signed
        older.signature = nil
        XCTAssertEqual(ItemRecordJSON.encode(older), text.replacingOccurrences(
            of: #","signature":"\#(signed.signature!)""#, with: ""))
        // The reader skips members it does not know, as an older one skips `signature`.
        let future = text.replacingOccurrences(of: #","tags":"#, with: #","unknown":{"a":[1]},"tags":"#)
        XCTAssertEqual(try RecordCoding.decode(ItemRecord.self, from: future), signed)
        XCTAssertFalse(ItemRecordJSON.encode(ItemRecord.tombstone(id: signed.id, lastModified: 1)).contains("signature"))
    }
}
