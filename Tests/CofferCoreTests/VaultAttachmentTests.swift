import CofferTestSupport
import Foundation
import GRDB
import XCTest
@testable import CofferCore

/// Files kept with items (issue 30), in a real vault file: stored sealed with the item, read back
/// byte for byte, bound to their item, removed with it; a file over 16 MiB refused in one sentence.
final class VaultAttachmentTests: XCTestCase {
    private func makeVault() throws -> Vault {
        let path = try makeTemporaryDirectory().appendingPathComponent("vault.db").path
        return try Vault.create(at: path, passphrase: Fixture.passphrase("pw"), kdf: Fixture.fastKDF(), deviceName: "test")
    }

    private func stored(_ vault: Vault) throws -> [VaultDatabase.StoredAttachment] {
        try vault.database.read { db in
            try VaultDatabase.attachments(in: .upload, in: db) + VaultDatabase.attachments(in: .stable, in: db)
                + VaultDatabase.attachments(in: .remove, in: db)
        }
    }

    func testAFileIsKeptSealedAndReadBackByteForByte() async throws {
        let vault = try makeVault()
        let item = try await vault.add(Fixture.item(title: "Passport scan"))
        let bytes = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }) + Data("the canary 7f3a".utf8)
        let saved = try await vault.attach(bytes, named: "scan.pdf", to: item.id)
        XCTAssertEqual(saved.attachments.map(\.name), ["scan.pdf"])
        XCTAssertEqual(saved.attachments.first?.size, bytes.count)
        let reread = try await vault.item(item.id)
        XCTAssertEqual(reread.attachments, saved.attachments, "the reference is sealed in the item")
        let (attachment, data) = try await vault.attachmentData("SCAN.PDF", of: reread)
        XCTAssertEqual(data, bytes)
        XCTAssertEqual(attachment.sha256.count, 64)

        let rows = try stored(vault)
        XCTAssertEqual(rows.map(\.state), [.upload])
        XCTAssertEqual(rows.first?.chunks, 2, "700 KB take two chunks of 512 KiB")
        let file = try Data(contentsOf: URL(fileURLWithPath: vault.database.path))
        XCTAssertNil(file.range(of: Data("the canary 7f3a".utf8)), "no plaintext of the file in the vault file")
    }

    func testAFileMovedToAnotherItemDoesNotOpen() async throws {
        let vault = try makeVault()
        let first = try await vault.add(Fixture.item(title: "First"))
        let second = try await vault.add(Fixture.item(title: "Second"))
        let withFile = try await vault.attach(Data("secret file".utf8), named: "a.txt", to: first.id)
        // A reference copied onto another item (as a hostile device could write it) names the same bytes.
        var forged = try await vault.item(second.id)
        forged.attachments = withFile.attachments
        let ring = try await vault.unlockedSession().ring
        let sealed = try XCTUnwrap(try stored(vault).first?.sealed)
        XCTAssertThrowsError(try AttachmentSealing.open(sealed, item: forged.id, attachment: withFile.attachments[0], ring: ring))
        XCTAssertNoThrow(try AttachmentSealing.open(sealed, item: first.id, attachment: withFile.attachments[0], ring: ring))
        var altered = withFile.attachments[0]
        altered.sha256 = String(repeating: "0", count: 64)
        var tampered = withFile
        tampered.attachments = [altered]
        let error = await thrownError { try await vault.attachmentData("a.txt", of: tampered) }
        XCTAssertTrue("\(String(describing: error))".contains("does not match"), "\(String(describing: error))")
    }

    func testDetachAndRemoveTakeTheBytesAndOweTheServerTheChunks() async throws {
        let vault = try makeVault()
        let item = try await vault.add(Fixture.item(title: "Keys"))
        try await vault.attach(Data("one".utf8), named: "one.txt", to: item.id)
        try await vault.attach(Data("two".utf8), named: "two.txt", to: item.id)
        // Not uploaded yet, or partly (a sync cut short): detaching takes the bytes and leaves the
        // chunks that may be on the server to delete.
        let detached = try await vault.detach("one.txt", from: item.id)
        XCTAssertEqual(detached.attachments.map(\.name), ["two.txt"])
        XCTAssertEqual(try stored(vault).map(\.state), [.upload, .remove], "two.txt waits to go; one.txt to be deleted")
        XCTAssertNil(try stored(vault).last?.sealed)
        try vault.database.write { db in
            for file in try VaultDatabase.attachments(in: .remove, in: db) { try VaultDatabase.forgetAttachment(file.id, in: db) }
        }
        // As if synced: removing the item marks its file for deletion on the server, bytes gone.
        try vault.database.write { db in
            for file in try VaultDatabase.attachments(in: .upload, in: db) { try VaultDatabase.setAttachmentState(file.id, .stable, in: db) }
        }
        try await vault.remove(item.id)
        let rows = try stored(vault)
        XCTAssertEqual(rows.map(\.state), [.remove])
        XCTAssertNil(rows.first?.sealed)
        let missing = await thrownError { try await vault.detach("nothing.txt", from: try await vault.add(Fixture.item()).id) }
        XCTAssertTrue("\(String(describing: missing))".contains("no file named"), "\(String(describing: missing))")
    }

    func testAFileOver16MiBIsRefusedInOneSentence() async throws {
        let vault = try makeVault()
        let item = try await vault.add(Fixture.item())
        let error = await thrownError { try await vault.attach(Data(count: Attachment.sizeLimit + 1), named: "big.iso", to: item.id) }
        XCTAssertEqual((error as? CoreError)?.description,
                       "The file is 16777217 bytes; an attachment holds at most 16 MiB (16777216 bytes).")
        let unchanged = try await vault.item(item.id)
        XCTAssertEqual(unchanged.attachments, [])
        XCTAssertEqual(try stored(vault).count, 0)
    }

    /// Both devices' files survive a merge; one removed on one side stays removed.
    func testAttachmentsMergeAsASet() {
        let time = Timestamp(milliseconds: 1_700_000_000_000)
        let a = Attachment(name: "a", bytes: Data("a".utf8), added: time)
        let b = Attachment(name: "b", bytes: Data("b".utf8), added: time)
        let c = Attachment(name: "c", bytes: Data("c".utf8), added: time)
        let stable = Item(id: "i", title: "T", created: time, attachments: [a])
        var local = stable
        local.attachments = [a, b]
        var remote = stable
        remote.attachments = [c]  // a removed there, c added
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: time)
        XCTAssertEqual(outcome.merged.attachments.map(\.name), ["b", "c"])
        let row = outcome.conflicts.first { $0.field == .attachments }
        XCTAssertEqual(row?.lists?.combined, ["b", "c"])
    }
}
