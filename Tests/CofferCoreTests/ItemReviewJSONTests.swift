import Foundation
import XCTest
@testable import CofferCore

/// `ItemReviewJSON` writes what `JSONEncoder` wrote for a review, byte for byte (sorted keys,
/// slashes as is), and what it writes decodes to the same review.
final class ItemReviewJSONTests: XCTestCase {
    private let tricky = ["", "plain", "a/b", "\"quoted\"", "back\\slash", "tab\tnew\nline", "\u{0}\u{1F}\u{7F}",
                          "é日本🔑", "\u{2028}", "https://example.com/login?x=1&y=2"]

    private func review(_ seed: Int) -> ItemReview {
        func text(_ n: Int) -> String { tricky[(seed + n) % tricky.count] }
        let stamp = FieldStamp(at: Timestamp(milliseconds: 1_767_225_600_000 + Int64(seed) * 1_001), by: text(1))
        var single = ItemMerge.FieldConflict(field: ItemField.builtIn[seed % ItemField.builtIn.count],
                                             local: text(2), remote: text(3),
                                             changedOn: [.both, .local, .remote][seed % 3],
                                             chosen: [.local, .remote, .combined][seed % 3])
        if seed % 2 == 0 {
            single.localStamp = stamp
            single.remoteStamp = FieldStamp(at: Timestamp(milliseconds: Int64(seed)), by: "")
        } else if seed % 3 == 0 {
            single.remoteStamp = stamp
        }
        let list = ItemMerge.FieldConflict(field: .tags,
                                           lists: ItemMerge.ListValues(local: [text(4), text(5)], remote: [],
                                                                       combined: (0..<(seed % 4)).map { text($0) }),
                                           changedOn: .both)
        let conflicts = [[], [single], [single, list], [list, single, list]][seed % 4]
        // A shared vault's review names who signed the server's version.
        return ItemReview(id: "item-\(seed)", title: text(6), conflicts: conflicts, remoteSigner: seed % 5 == 0 ? text(7) : nil)
    }

    func testWritesTheBytesJSONEncoderWroteAndDecodesToTheSameReview() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for seed in 0..<200 {
            let review = review(seed)
            let ours = ItemReviewJSON.encode(review)
            XCTAssertEqual(String(decoding: ours, as: UTF8.self),
                           String(decoding: try encoder.encode(review), as: UTF8.self), "seed \(seed)")
            XCTAssertEqual(try JSONDecoder().decode(ItemReview.self, from: Data(ours)), review, "seed \(seed)")
        }
    }

    /// An older reader's shape (no `remoteSigner`) reads a review that names the signer, and one
    /// written before it reads here as naming nobody.
    func testTheSignerIsAMemberOlderReadersPassOver() throws {
        struct OlderReview: Decodable { var id: String; var title: String; var conflicts: [ItemMerge.FieldConflict] }
        var named = review(1)
        named.remoteSigner = "0123456789abcdef0123456789abcdef"
        let older = try JSONDecoder().decode(OlderReview.self, from: Data(ItemReviewJSON.encode(named)))
        XCTAssertEqual(older.conflicts, named.conflicts)
        let before = #"{"conflicts":[],"id":"item-1","title":"T"}"#
        XCTAssertNil(try JSONDecoder().decode(ItemReview.self, from: Data(before.utf8)).remoteSigner)
    }
}
