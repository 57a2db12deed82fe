import CofferCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The README's "What the server sees" (issue 41, finding 6), read back from what Kinto stores
/// after the built binary synced a personal vault with items and a file, and a shared vault:
/// ciphertext padded to its size class, search hashes, a file as whole chunks of its class, and a
/// shared vault's name sealed in the personal bucket's `shares` record.
extension ShareCommandTests {
    /// The records of `collection` in `bucket` as Kinto answers them, and the raw answer.
    private func stored(_ collection: String, in bucket: String = "default", as member: Member) throws -> ([[String: Any]], String) {
        let url = server.appendingPathComponent("buckets/\(bucket)/collections/\(collection)/records")
        let (data, status) = try SyncCommandServer.send(URLRequest(url: url), account: member.account)
        XCTAssertEqual(status, 200, String(decoding: data, as: UTF8.self))
        let records = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["data"] as? [[String: Any]] ?? []
        return (records, String(decoding: data, as: UTF8.self))
    }

    /// An item's envelope holds a version byte, its lineage, a nonce, the padded plaintext and a
    /// tag: the plaintext's length must be a class (`SizeClass.item`).
    private func assertItemsPadded(_ records: [[String: Any]], _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertFalse(records.isEmpty, what, file: file, line: line)
        for record in records {
            let keys = Set(record.keys)
            XCTAssertTrue(keys.isSubset(of: ["id", "active", "origins", "tags", "encrypted", "last_modified", "signature"]),
                          "\(what): \(keys.sorted())", file: file, line: line)
            let sealed = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(record["encrypted"] as? String)), file: file, line: line)
            let plaintext = sealed.count - (1 + 24 + 12 + 16)
            XCTAssertEqual(SizeClass.item(plaintext), plaintext, "\(what): \(plaintext) bytes of plaintext is no class", file: file, line: line)
            for hash in (record["origins"] as? [String] ?? []) + (record["tags"] as? [String] ?? []) {
                XCTAssertEqual(hash.count, 64, "\(what): a search hash is 64 hex digits, not \(hash)", file: file, line: line)
            }
        }
    }

    func testTheServerSeesWhatTheREADMESays() throws {
        let ann = try person("Ann")
        let mark = UUID().uuidString.lowercased().prefix(8)
        let canaries = ["canary-title-\(mark)", "canary-secret-\(mark)", "canary-file-\(mark)", "canary-note-\(mark)"]
        let door = try ann.vault.add(canaries[0], ["--password", canaries[1], "--origin", "https://door.example", "--tag", "home"])
        _ = try ann.vault.add("Short", ["--password", "x"])
        _ = try ann.vault.add("Letter", ["--kind", "note", "--notes", String(repeating: canaries[3] + " ", count: 40)])
        let head = Data((canaries[2] + " ").utf8)
        let fileBytes = head + Data((0..<3_000 - head.count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        XCTAssertEqual(fileBytes.count, 3_000)
        try ann.vault.ok(["attach", door, try ann.vault.writeWorkFile("deed.txt", fileBytes)])
        let shareName = "cellar\(mark)"
        assertOK(try ann.vault.run(["share", "create", shareName, "--as", "Ann"]))
        assertOK(try ann.inShared(shareName, ["add", "--title", canaries[0] + "-shared", "--password", canaries[1]]))
        assertOK(try ann.inShared(shareName, ["sync"]))
        assertOK(try ann.vault.run(["sync"]))

        // Items, personal and shared: ciphertext padded to its class, search hashes.
        let (items, itemsText) = try stored("items", as: ann)
        XCTAssertEqual(items.count, 3)
        try assertItemsPadded(items, "a personal item")
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath(shareName), "share_vault"))
        let (sharedItems, sharedText) = try stored("items", in: bucket, as: ann)
        try assertItemsPadded(sharedItems, "a shared item")

        // The file: 3,000 bytes were one chunk of 3,029; now one chunk of its class, 64 KiB.
        let (chunks, chunksText) = try stored("attachments", as: ann)
        XCTAssertEqual(chunks.count, 1)
        let chunk = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(chunks.first?["data"] as? String)))
        XCTAssertEqual(chunk.count, 65_536, "a file of 3,000 bytes is seen as one of at most 64 KiB")
        XCTAssertEqual(chunks.first?["count"] as? String, "1")

        // The shared vault's name: sealed, the clear `name` its bucket (the record's id already).
        let (shares, sharesText) = try stored("shares", as: ann)
        XCTAssertEqual(shares.count, 1)
        let share = try XCTUnwrap(shares.first)
        XCTAssertEqual(Set(share.keys), ["id", "last_modified", "name", "sealed_name", "member"])
        XCTAssertEqual(share["name"] as? String, bucket)
        XCTAssertEqual(share["id"] as? String, bucket)
        // An older version lists a record whose clear name is a valid name (`SharedVaultName.isValid`)
        // and ignores `sealed_name`: it sees the vault as named by its bucket.
        XCTAssertTrue(SharedVaultName.isValid(bucket))

        // Nothing of what Ann typed, in any record the server holds.
        let (keystores, keystoresText) = try stored("keystores", as: ann)
        XCTAssertEqual(keystores.count, 1)
        let (_, devicesText) = try stored("devices", as: ann)
        for text in [itemsText, sharedText, chunksText, sharesText, keystoresText, devicesText] {
            for canary in canaries + [shareName, "door.example", "deed.txt"] {
                XCTAssertFalse(text.contains(canary), "the server holds \(canary)")
            }
        }

        // Her own device opens the sealed name; a second device finds the vault by it.
        let listed = try ann.vault.run(["share", "list"])
        assertOK(listed)
        XCTAssertTrue(listed.out.contains("\(shareName)  here: "), listed.summary)
        let laptop = try TestVault(passphrase: ann.vault.passphrase)
        let passwordFile = try laptop.writeWorkFile("account-password", ann.account.password + "\n")
        assertOK(try laptop.run(["join", "--server", server.absoluteString, "--user", ann.account.user, "--password-file", passwordFile]))
        people.append(Member(name: "Ann", vault: laptop, account: ann.account))
        let fromLaptop = try laptop.run(["share", "list"])
        assertOK(fromLaptop)
        XCTAssertTrue(fromLaptop.out.contains("\(shareName)  not on this device"), fromLaptop.summary)

        // A record as an older version writes it (the name in the clear, no `sealed_name`) is
        // still read: listed and joined by its name.
        var old = share
        for member in ["id", "last_modified", "sealed_name"] { old[member] = nil }
        old["name"] = shareName
        var put = URLRequest(url: server.appendingPathComponent("buckets/default/collections/shares/records/\(bucket)"))
        put.httpMethod = "PUT"
        put.setValue("application/json", forHTTPHeaderField: "Content-Type")
        put.httpBody = try JSONSerialization.data(withJSONObject: ["data": old])
        XCTAssertEqual(try SyncCommandServer.send(put, account: ann.account).1, 200)
        let oldListed = try laptop.run(["share", "list"])
        assertOK(oldListed)
        XCTAssertTrue(oldListed.out.contains("\(shareName)  not on this device"), oldListed.summary)
        let joined = try laptop.run(["share", "join", shareName])
        assertOK(joined)
        XCTAssertTrue(joined.err.contains("This device has its copy of “\(shareName)”"), joined.summary)
    }
}
