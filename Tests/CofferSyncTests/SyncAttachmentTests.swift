import CofferCore
@testable import CofferSync
import CofferTestSupport
import Crypto
import Foundation
import XCTest

/// Issue 30's attachments on the real Kinto: a 16 MiB file added on A is saved on B byte for byte;
/// removing it removes it from B and from the server (a raw listing); an upload or a download cut
/// short resumes on the next sync and never leaves half a file visible; the server holds only
/// sealed chunks, none of them large.
final class SyncAttachmentTests: KintoAccountTestCase {
    private func pair() async throws -> (a: Device, b: Device) {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        return (a, b)
    }

    /// 16 MiB of bytes that do not compress, with a canary at both ends.
    private func bigFile() -> Data {
        var generator = SystemRandomNumberGenerator()
        var bytes = Data((0..<(Attachment.sizeLimit - 64)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        bytes.replaceSubrange(0..<16, with: Data("CANARY-BEGIN-7f3".utf8))
        bytes.append(Data("CANARY-END-9c1".utf8))
        return bytes
    }

    private func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    func testASixteenMebibyteFileReachesTheOtherDeviceAndIsRemovedEverywhere() async throws {
        let (a, b) = try await pair()
        let item = try await a.add("Scans", username: "ann")
        let bytes = bigFile()
        try await a.vault.attach(bytes, named: "passport.pdf", to: item.id)
        await a.syncExpectingSuccess()

        let raw = RawAccount(server: server, credentials: credentials)
        let chunks = try await raw.records("attachments")
        XCTAssertEqual(chunks.count, AttachmentSealing.chunkCount(of: bytes.count + 29), "one record per 512 KiB")
        let listing = try await raw.text("attachments")
        XCTAssertFalse(listing.contains("passport"), "the file name stays sealed")
        XCTAssertFalse(listing.contains(Data("CANARY-BEGIN-7f3".utf8).base64EncodedString().prefix(16)), "no plaintext chunk")

        await b.syncExpectingSuccess()
        let onB = try await b.vault.item(item.id)
        let (attachment, received) = try await b.vault.attachmentData("passport.pdf", of: onB)
        XCTAssertEqual(sha256(received), sha256(bytes))
        XCTAssertEqual(attachment.size, bytes.count)

        try await b.vault.detach("passport.pdf", from: item.id)
        await b.syncExpectingSuccess()
        let left = try await raw.records("attachments")
        XCTAssertEqual(left.count, 0, "the chunks are gone from the server")
        await a.syncExpectingSuccess()
        let onA = try await a.vault.item(item.id)
        XCTAssertEqual(onA.attachments, [])
        let storedOnA = try a.vault.database.read { try VaultDatabase.attachmentIDs(in: $0) }
        XCTAssertEqual(storedOnA, [], "A forgot the bytes too")
    }

    func testRemovingTheItemRemovesItsFilesEverywhere() async throws {
        let (a, b) = try await pair()
        let item = try await a.add("Keys")
        try await a.vault.attach(Data("key file".utf8), named: "id_ed25519", to: item.id)
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await b.remove(item.id)
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        let raw = RawAccount(server: server, credentials: credentials)
        let chunks = try await raw.records("attachments")
        XCTAssertEqual(chunks.count, 0)
        for device in [a, b] {
            let ids = try device.vault.database.read { try VaultDatabase.attachmentIDs(in: $0) }
            XCTAssertEqual(ids, [], device.name)
        }
    }

    /// A server that loses (or deletes, being hostile) the chunks of a file an item still names
    /// cannot make a device drop it: the bytes stay, and an unlocked sync sends them again.
    func testChunksTheServerDropsAreSentAgainNotLost() async throws {
        let (a, b) = try await pair()
        let item = try await a.add("Deeds")
        let bytes = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 29) })
        try await a.vault.attach(bytes, named: "deed.pdf", to: item.id)
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let raw = RawAccount(server: server, credentials: credentials)
        for chunk in try await raw.records("attachments") {
            _ = try await raw.request("DELETE", "buckets/default/collections/attachments/records/\(try XCTUnwrap(chunk["id"] as? String))")
        }
        let emptied = try await raw.records("attachments")
        XCTAssertEqual(emptied.count, 0)
        // Items arrive (another edit), so B lists the chunks and meets the deletions.
        _ = try await a.add("Another")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let onB = try await b.vault.item(item.id)
        let (_, kept) = try await b.vault.attachmentData("deed.pdf", of: onB)
        XCTAssertEqual(kept, bytes, "B kept the bytes")
        let resent = try await raw.records("attachments")
        XCTAssertEqual(resent.count, 2, "B sent the file's two chunks again")
        await a.syncExpectingSuccess()
        let itemOnA = try await a.vault.item(item.id)
        let (_, onA) = try await a.vault.attachmentData("deed.pdf", of: itemOnA)
        XCTAssertEqual(onA, bytes)
    }

    /// The connection drops while the chunks go up, then while they come down: the next sync
    /// finishes each, and until then B shows no file.
    func testAnInterruptedUploadAndDownloadResume() async throws {
        let (a, b) = try await pair()
        let proxy = try FaultProxy(upstream: server.url)
        self.proxy = proxy
        a.use(server: proxy.url, credentials: credentials)
        b.use(server: proxy.url, credentials: credentials)
        let item = try await a.add("Backup")
        let bytes = Data((0..<1_300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await a.vault.attach(bytes, named: "backup.tar", to: item.id)

        // The second chunk's write is cut: the item must not go up before its file.
        try await proxy.setFault(.resetBefore, count: 1, match: "/collections/attachments/records/", skip: 1)
        let cut = await a.sync()
        XCTAssertNotNil(cut.error, "the cut upload fails the sync")
        let raw = RawAccount(server: server, credentials: credentials)
        let items = try await raw.records("items")
        XCTAssertFalse(items.contains { $0["id"] as? String == item.id }, "the item waits for its file")
        await a.syncExpectingSuccess()

        // B's download is cut after its first chunk: no file yet, and then the whole of it.
        try await proxy.setFault(.resetBefore, count: 1, match: "/collections/attachments/records/", skip: 1)
        let half = await b.sync()
        XCTAssertNotNil(half.error)
        let onB = try await b.vault.item(item.id)
        let partial = await thrownError { try await b.vault.attachmentData("backup.tar", of: onB) }
        XCTAssertTrue("\(String(describing: partial))".contains("has not arrived"), "\(String(describing: partial))")
        await b.syncExpectingSuccess()
        let (_, received) = try await b.vault.attachmentData("backup.tar", of: onB)
        XCTAssertEqual(received, bytes)
    }

    /// A file detached after a sync sent part of it: its chunks on the server are deleted by the
    /// next sync, not left there for good (before, its row was dropped as never sent).
    func testAFileDetachedAfterAPartUploadLeavesNoChunkOnTheServer() async throws {
        let (a, _) = try await pair()
        let proxy = try FaultProxy(upstream: server.url)
        self.proxy = proxy
        a.use(server: proxy.url, credentials: credentials)
        let item = try await a.add("Backup")
        let bytes = Data((0..<1_300_000).map { UInt8(truncatingIfNeeded: $0 &* 11) })
        try await a.vault.attach(bytes, named: "backup.tar", to: item.id)
        try await proxy.setFault(.resetBefore, count: 1, match: "/collections/attachments/records/", skip: 1)
        let cut = await a.sync()
        XCTAssertNotNil(cut.error, "the cut upload fails the sync")
        let raw = RawAccount(server: server, credentials: credentials)
        let live = { try await raw.records("attachments").filter { $0["deleted"] as? Bool != true } }
        let sent = try await live()
        XCTAssertEqual(sent.count, 1, "the first chunk went up")

        try await a.vault.detach("backup.tar", from: item.id)
        await a.syncExpectingSuccess()
        let left = try await live()
        XCTAssertEqual(left.count, 0, "no chunk of the removed file is left")
    }

    /// Idle syncs ask nothing about files: the attachment listing is read only after items arrived.
    func testAnIdleSyncDoesNotListTheFiles() async throws {
        let (a, _) = try await pair()
        let proxy = try FaultProxy(upstream: server.url)
        self.proxy = proxy
        a.use(server: proxy.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let before = try await proxy.log().count
        await a.syncExpectingSuccess()
        let requests = try await proxy.log().dropFirst(before)
        XCTAssertFalse(requests.contains { $0.path.contains("attachments") }, "\(requests.map(\.path))")
    }
}
