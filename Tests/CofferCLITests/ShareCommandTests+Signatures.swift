import CofferCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Issue 42, findings 1 and 2, with the built binary and the real Kinto: after Ann revokes Cat,
/// a version of an item sealed under the keys Cat kept (which every device must still open: they
/// are retired, not gone) is written with a current member's account — what a server that helps
/// her can do, and what a removed member whose account kept a permission can do alone. Every
/// member's device refuses it (exit 15, one sentence), keeps the real version and puts it back.
extension ShareCommandTests {
    /// `record` PUT over the server's copy with `account`, as the server (or anyone with write) can.
    private func put(_ record: ItemRecord, in bucket: String, as account: (user: String, password: String)) throws {
        var request = URLRequest(url: server.appendingPathComponent("buckets/\(bucket)/collections/items/records/\(record.id)"))
        request.httpMethod = "PUT"
        var object = try JSONSerialization.jsonObject(with: Data(try RecordCoding.encode(record).utf8)) as? [String: Any] ?? [:]
        object.removeValue(forKey: "last_modified")
        object.removeValue(forKey: "id")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["data": object])
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (body, status) = try SyncCommandServer.send(request, account: account)
        XCTAssertEqual(status, 200, String(decoding: body, as: UTF8.self))
    }

    /// The server's record of the item titled `title`, opened with `ring`.
    private func serverItem(_ title: String, in bucket: String, as member: Member, ring: KeyRing) throws -> (ItemRecord, Item) {
        for record in try serverItems(bucket, as: member) {
            if let item = try? ItemSealing.open(record, ring: ring), item.title == title { return (record, item) }
        }
        throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no item titled \(title) on the server"])
    }

    /// A version of `title` over the server's, sealed with Cat's kept keys and signed by Cat (or
    /// by nobody): newer than the server's, opened by every member's retired keys.
    private func forge(_ title: String, in bucket: String, as member: Member, memberRing: KeyRing, catsRing: KeyRing,
                       signedBy cat: PersonKeys?, vaultID: SharedVaultID) throws -> ItemRecord {
        let (current, item) = try serverItem(title, in: bucket, as: member, ring: memberRing)
        var forged = item
        forged.title = "\(title) FORGED-BY-CAT"
        let record = try ItemSealing.seal(forged, ring: catsRing, lineage: .following(current.encrypted))
        XCTAssertNoThrow(try ItemSealing.open(record, ring: memberRing), "the members' retired keys open it")
        return try cat.map { try ItemSignature.signed(record, as: $0, in: vaultID) } ?? record
    }

    /// `member`'s sync refuses a version no member signed: exit 15, said in one sentence.
    private func assertRefusesTheForgery(_ member: Member, file: StaticString = #filePath, line: UInt = #line) throws {
        let synced = try member.inShared("home", ["sync"], file: file, line: line)
        assertExit(synced, 15, file: file, line: line)
        XCTAssertTrue(synced.err.contains("no current member signed"), synced.summary, file: file, line: line)
    }

    func testARemovedMembersVersionIsRefusedByEveryMemberAndTheRealOneGoesBack() throws {
        let (ann, bob, cat) = try household()
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        let vaultID = try XCTUnwrap(SharedVaultID(bucket: bucket))
        let (catsKeys, _) = try keys(of: cat)
        let catsPerson = try XCTUnwrap(try Vault.open(at: cat.sharedPath("home"))
            .memberSecrets(passphrase: SecureBuffer(copying: Data(cat.vault.passphrase.utf8)))).person

        // Bob's edit made before the revocation, sent after it, is a member's: kept.
        assertOK(try bob.inShared("home", ["edit", "Door", "--password", "canary-door-2"]))
        assertOK(try ann.inShared("home", ["share", "revoke", "Cat"]))
        try syncAfterTheRevocation(bob)
        assertOK(try ann.inShared("home", ["sync"]))
        let (annsKeys, _) = try keys(of: ann)
        let titles: Set<String> = ["Cat's bike", "Door"]

        // Signed by Cat, sent with Ann's account (lent by the server): Bob refuses it.
        let signed = try forge("Door", in: bucket, as: ann, memberRing: annsKeys.ring, catsRing: catsKeys.ring,
                               signedBy: catsPerson, vaultID: vaultID)
        try put(signed, in: bucket, as: ann.account)
        try assertRefusesTheForgery(bob)
        XCTAssertEqual(try bob.titles(in: "home"), titles)
        XCTAssertNotEqual(try serverItem("Door", in: bucket, as: ann, ring: annsKeys.ring).0.encrypted, signed.encrypted,
                          "Bob's device put the real version back")
        assertOK(try ann.inShared("home", ["sync"]))

        // Unsigned, over Cat's bike, with Bob's account: Ann refuses it, and Bob takes what she put back.
        let unsigned = try forge("Cat's bike", in: bucket, as: ann, memberRing: annsKeys.ring, catsRing: catsKeys.ring,
                                 signedBy: nil, vaultID: vaultID)
        try put(unsigned, in: bucket, as: bob.account)
        try assertRefusesTheForgery(ann)
        for member in [ann, bob] {
            assertOK(try member.inShared("home", ["sync"]))
            XCTAssertEqual(try member.titles(in: "home"), titles, member.name)
            let door = try member.inShared("home", ["show", "Door", "--field", "password"])
            XCTAssertEqual(door.out.trimmingCharacters(in: .newlines), "canary-door-2", member.name)
        }

        // The server's copy of a member's version with its signature stripped is no new version:
        // taken without a word, and the signature stays on the device.
        var stripped = try serverItem("Door", in: bucket, as: ann, ring: annsKeys.ring).0
        stripped.signature = nil
        try put(stripped, in: bucket, as: ann.account)
        assertOK(try bob.inShared("home", ["sync"]))
        XCTAssertEqual(try bob.titles(in: "home"), titles)
        let kept = try Vault.open(at: bob.sharedPath("home")).database.read { try VaultDatabase.stableItem(stripped.id, in: $0) }
        XCTAssertNotNil(kept?.signature, "the stable version keeps the member's signature")

        // A new member joins a vault whose items a member signed, and reads them all.
        let dan = try person("Dan")
        assertOK(try invite(dan, to: "home", by: ann).joined)
        XCTAssertEqual(try dan.titles(in: "home"), titles)
    }
}
