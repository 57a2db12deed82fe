import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// The trash's rules over values (issue 43): where a merged item stands, what expires, and what an
/// older version makes of a trashed item's JSON.
final class TrashRuleTests: XCTestCase {
    private func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + seconds * 1000) }

    private let stable = Item(id: "id-1", title: "Mail", entry: Entry(username: "u0", password: "p0"),
                              created: Timestamp(milliseconds: 1_700_000_000_000))

    private func trashed(_ item: Item, at time: Timestamp) -> Item {
        var changed = item
        changed.trashed = time
        changed.modified = time
        return changed
    }

    private func edited(_ item: Item, at time: Timestamp) -> Item {
        var changed = item
        changed.replaceEntry(with: Entry(username: "u0", password: "p-new"), at: time)
        changed.stampChanges(from: item, at: time, by: "device")
        changed.modified = time
        return changed
    }

    // MARK: The rule, case by case

    func testEachDecisionOfTheRule() {
        let inTrash = trashed(stable, at: at(5))
        let cases: [(String, Item, Item?, Item, TrashMergeRule.Decision)] = [
            ("neither side trashed", edited(stable, at: at(1)), stable, stable, .same(nil)),
            ("both trashed at the same time", inTrash, stable, inTrash, .same(at(5))),
            ("local trashed, remote untouched", inTrash, stable, stable, .taken(at(5))),
            ("remote trashed, local untouched", stable, stable, inTrash, .taken(at(5))),
            ("local trashed, remote edited", inTrash, stable, edited(stable, at: at(6)), .editBeatsTrash),
            ("remote trashed, local edited", edited(stable, at: at(6)), stable, inTrash, .editBeatsTrash),
            ("both trashed at different times", inTrash, stable, trashed(stable, at: at(9)), .earlierTrash(at(5))),
            ("restored here, still trashed there", stable, inTrash, inTrash, .taken(nil)),
            ("restored here, re-trashed there", stable, inTrash, trashed(stable, at: at(9)), .outOfTrash),
            ("base unknown, sides differ", inTrash, nil, stable, .outOfTrash),
        ]
        for (name, local, base, remote, expected) in cases {
            XCTAssertEqual(TrashMergeRule.decide(local: local, stable: base, remote: remote), expected, name)
        }
    }

    func testTheTrashItselfAndTheTimesItMovesAreNoEdit() {
        var used = trashed(stable, at: at(5))
        used.lastUsed = at(7)
        XCTAssertFalse(TrashMergeRule.isEdited(used, since: stable))
        var tagged = stable
        tagged.tags = ["new"]
        XCTAssertTrue(TrashMergeRule.isEdited(tagged, since: stable), "a tag is an edit")
    }

    // MARK: In the merge

    /// The issue's rule: "a conflict between an edit and a removal keeps the edit and the trash is
    /// empty", whichever side merges.
    func testAnEditOnOneSideAndATrashOnTheOtherMergeToTheEditOutOfTheTrash() {
        let edit = edited(stable, at: at(6))
        let trash = trashed(stable, at: at(5))
        let here = ItemMerge.merge(local: edit, stable: stable, remote: trash, now: at(10)).merged
        let there = ItemMerge.merge(local: trash, stable: stable, remote: edit, now: at(10)).merged
        for merged in [here, there] {
            XCTAssertNil(merged.trashed)
            XCTAssertEqual(merged.entry.password, "p-new")
        }
    }

    func testATrashMeetingAnUntouchedItemStaysInTheTrash() {
        var used = stable
        used.lastUsed = at(3)  // copying a password is no edit
        let merged = ItemMerge.merge(local: used, stable: stable, remote: trashed(stable, at: at(5)), now: at(10)).merged
        XCTAssertEqual(merged.trashed, at(5))
    }

    func testARestoreMeetingAnEditOfTheTrashedItemIsOutOfTheTrash() {
        let base = trashed(stable, at: at(5))
        var restored = base
        restored.trashed = nil
        let merged = ItemMerge.merge(local: restored, stable: base, remote: edited(base, at: at(8)), now: at(10)).merged
        XCTAssertNil(merged.trashed)
        XCTAssertEqual(merged.entry.password, "p-new")
    }

    // MARK: Expiry

    func testAnItemExpiresOnlyAfterThirtyDays() {
        let day: Int64 = 24 * 60 * 60 * 1000
        let put = at(0)
        XCTAssertEqual(TrashRules.keptDays, 30)
        XCTAssertFalse(TrashRules.isExpired(trashed: put, now: Timestamp(milliseconds: put.milliseconds + 30 * day)))
        XCTAssertTrue(TrashRules.isExpired(trashed: put, now: Timestamp(milliseconds: put.milliseconds + 30 * day + 1)))
        let listed = [
            ListedItem(id: "old", state: .ready(trashed(stable, at: put)), hasLocalChange: false, hasConflict: false, needsReview: false),
            ListedItem(id: "new", state: .ready(trashed(stable, at: at(29 * 86_400))), hasLocalChange: false, hasConflict: false,
                       needsReview: false),
            ListedItem(id: "kept", state: .ready(stable), hasLocalChange: false, hasConflict: false, needsReview: false),
            ListedItem(id: "unreadable", state: .waitingForKey, hasLocalChange: false, hasConflict: false, needsReview: false),
        ]
        let later = Timestamp(milliseconds: put.milliseconds + 31 * day)
        XCTAssertEqual(TrashRules.toRemove(listed, now: later, emptying: false), ["old"])
        XCTAssertEqual(TrashRules.toRemove(listed, now: later, emptying: true), ["old", "new"])
    }

    func testTheLookForExpiredItemsIsDueOnceADay() {
        let day: Int64 = 86_400_000
        XCTAssertTrue(TrashRules.isCheckDue(lastChecked: nil, now: at(0)))
        XCTAssertFalse(TrashRules.isCheckDue(lastChecked: at(0), now: Timestamp(milliseconds: at(0).milliseconds + day - 1)))
        XCTAssertTrue(TrashRules.isCheckDue(lastChecked: at(0), now: Timestamp(milliseconds: at(0).milliseconds + day)))
        XCTAssertTrue(TrashRules.isCheckDue(lastChecked: at(10), now: at(0)), "a clock that went back looks again")
    }

    // MARK: The format

    /// What an older version does with a trashed item: its reader (`ItemJSONReader`, and
    /// `JSONDecoder` before it) keeps `trashed` among the members it does not know, so it lists and
    /// shows the item as an ordinary one, and an edit there writes the member back unchanged.
    func testAnOlderVersionReadsATrashedItemAsAnOrdinaryOneAndKeepsTheMember() throws {
        let item = trashed(stable, at: at(5))
        let bytes = try ItemCodec.encode(item)
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.contains(#""title":"Mail","trashed":"2023-11-14T22:13:25.000Z""#), text)
        for decoded in [try ItemCodec.decode(bytes), try FoundationItemCodec.decode(bytes)] {
            XCTAssertEqual(decoded.extra, ["trashed": .string("2023-11-14T22:13:25.000Z")], "kept as a member it does not know")
            XCTAssertEqual(decoded, item)
            var edited = decoded
            edited.title = "Mail (edited by an older version)"
            XCTAssertEqual(try ItemCodec.decode(try ItemCodec.encode(edited)).trashed, at(5))
        }
        var notTrashed = item
        notTrashed.trashed = nil
        XCTAssertFalse(String(decoding: try ItemCodec.encode(notTrashed), as: UTF8.self).contains("trashed"),
                       "an item out of the trash is written as before the trash existed")
    }
}
