import CofferTestSupport
import Crypto
import Foundation
import XCTest
@testable import CofferCore

/// A sealed file is padded with random bytes to its size class (issue 41, finding 6): the server
/// sees 64, 128, 256 or 512 KiB, then whole chunks of 512 KiB. The envelope's length follows
/// from the size the item records, so a file without padding (an older version's) opens too.
final class AttachmentPaddingTests: XCTestCase {
    private func file(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }) }

    private func sealed(_ bytes: Data, ring: KeyRing, item: String, attachment: Attachment) throws -> Data {
        try AttachmentSealing.seal(bytes, item: item, attachment: attachment.id, ring: ring)
    }

    /// An item with its key, and a 3,000-byte file of it.
    private func threeThousandByteFile() -> (item: String, ring: KeyRing, bytes: Data, attachment: Attachment) {
        let item = Item.newID()
        let ring = KeyRing()
        ring.addKey(for: item)
        let bytes = file(3_000)
        return (item, ring, bytes, Attachment(name: "f", bytes: bytes, added: Fixture.epoch))
    }

    /// The file: 3,000 bytes were a 3,029-byte chunk; now one chunk of 64 KiB, and a file
    /// of 600,000 bytes two whole chunks. Both open back byte for byte.
    func testAFileIsPaddedToItsClassAndOpens() throws {
        let item = Item.newID()
        let ring = KeyRing()
        ring.addKey(for: item)
        for (size, padded, chunks) in [(3_000, 65_536, 1), (200_000, 262_144, 1), (600_000, 1_048_576, 2)] {
            let bytes = file(size)
            let attachment = Attachment(name: "f", bytes: bytes, added: Fixture.epoch)
            let sealed = try sealed(bytes, ring: ring, item: item, attachment: attachment)
            XCTAssertEqual(sealed.count, padded, "\(size) bytes")
            XCTAssertEqual(AttachmentSealing.chunkCount(of: sealed.count), chunks)
            XCTAssertEqual(try AttachmentSealing.open(sealed, item: item, attachment: attachment, ring: ring), bytes)
            // Random padding: zeros after the tag would show the server where the file ends.
            XCTAssertNotEqual(sealed.suffix(64), Data(count: 64))
        }
    }

    /// A file an older version sealed (its envelope alone) opens here.
    func testAnUnpaddedFileFromAnOlderVersionOpens() throws {
        let (item, ring, bytes, attachment) = threeThousandByteFile()
        let key = try XCTUnwrap(ring.withKey(for: item) { SymmetricKey(data: $0) })
        let unpadded = try Envelope.seal(bytes, symmetricKey: key, collection: "attachments", id: "\(item)/\(attachment.id)")
        XCTAssertEqual(unpadded.count, 3_029)
        XCTAssertEqual(try AttachmentSealing.open(unpadded, item: item, attachment: attachment, ring: ring), bytes)
    }

    /// What an older version does with a padded file: it opens all the bytes it reassembled as
    /// the envelope (`ring.open`, then the size and SHA-256 check), which fails authentication:
    /// the file is refused as modified (`coffer attachment`, `export`), its bytes kept; the item
    /// that names it opens as before (its padding is whitespace, `ItemPaddingTests`).
    func testAnOlderVersionRefusesAPaddedFileAsModified() throws {
        let (item, ring, bytes, attachment) = threeThousandByteFile()
        let sealed = try sealed(bytes, ring: ring, item: item, attachment: attachment)
        let olderOpen = thrownError { try ring.open(sealed, itemID: item, collection: "attachments", id: "\(item)/\(attachment.id)") }
        XCTAssertTrue(isTampered(olderOpen), "\(String(describing: olderOpen))")
    }

    /// Bytes shorter than the envelope the item's size asks for, a size past the limit, a
    /// changed byte of the envelope: refused as tampered. Padding changed: ignored, never read.
    func testMalformedPaddingIsRefusedOrIgnored() throws {
        let (item, ring, bytes, attachment) = threeThousandByteFile()
        let sealed = try sealed(bytes, ring: ring, item: item, attachment: attachment)
        XCTAssertTrue(isTampered(thrownError { try AttachmentSealing.open(sealed.prefix(3_028), item: item, attachment: attachment, ring: ring) }))
        var lying = attachment
        lying.size = Attachment.sizeLimit + 1
        XCTAssertTrue(isTampered(thrownError { try AttachmentSealing.open(sealed, item: item, attachment: lying, ring: ring) }))
        lying.size = -1
        XCTAssertTrue(isTampered(thrownError { try AttachmentSealing.open(sealed, item: item, attachment: lying, ring: ring) }))
        var flipped = sealed
        flipped[100] ^= 1
        XCTAssertTrue(isTampered(thrownError { try AttachmentSealing.open(flipped, item: item, attachment: attachment, ring: ring) }))
        var padding = sealed
        padding[padding.count - 1] ^= 1
        XCTAssertEqual(try AttachmentSealing.open(padding, item: item, attachment: attachment, ring: ring), bytes)
    }
}
