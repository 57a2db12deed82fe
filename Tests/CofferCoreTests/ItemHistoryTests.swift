import XCTest
@testable import CofferCore

/// `Item.replaceEntry`: history as RFC 7386 patches that walk the entry back, newest first.
final class ItemHistoryTests: XCTestCase {
    private func time(_ step: Int) -> Timestamp { Timestamp(milliseconds: Fixture.epoch.milliseconds + Int64(step) * 1000) }

    /// Entry number `step`: each differs from the one before, and some add or drop `totp`.
    private func entry(_ step: Int) -> Entry {
        Entry(username: "user\(step / 3)", password: "password-\(step)", notes: step.isMultiple(of: 2) ? "even" : "odd",
              totp: step.isMultiple(of: 5) ? nil : "otp\(step)")
    }

    func testUnchangedEntryAddsNoHistory() {
        var item = Fixture.item()
        item.replaceEntry(with: item.entry, at: time(1))
        XCTAssertEqual(item.history, [])
    }

    func testChangedEntryAddsOnePatchBackToTheOldEntry() {
        var item = Fixture.item(password: "old")
        let old = item.entry
        var new = old
        new.password = "new"
        item.replaceEntry(with: new, at: time(1))
        XCTAssertEqual(item.entry, new)
        XCTAssertEqual(item.history, [HistoryEntry(created: time(1), patch: .object(["password": .string("old")]))])
        XCTAssertEqual(Entry(jsonValue: MergePatch.apply(item.history[0].patch, to: item.entry.jsonValue)), old)
    }

    func testHistoryIsNewestFirst() {
        var item = Fixture.item()
        for step in 1...5 { item.replaceEntry(with: entry(step), at: time(step)) }
        XCTAssertEqual(item.history.map(\.created), (1...5).reversed().map(time))
    }

    func testRepeatingTheSameEntryAddsNothing() {
        var item = Fixture.item()
        item.replaceEntry(with: entry(1), at: time(1))
        item.replaceEntry(with: entry(1), at: time(2))
        item.replaceEntry(with: entry(1), at: time(3))
        XCTAssertEqual(item.history.count, 1)
        XCTAssertEqual(item.history[0].created, time(1))
    }

    func testPatchesWalkBackThroughEveryPreviousState() {
        var item = Fixture.item()
        var states = [item.entry]
        for step in 1...40 {
            item.replaceEntry(with: entry(step), at: time(step))
            states.append(entry(step))
        }
        XCTAssertEqual(item.history.count, 40)
        var current = item.entry.jsonValue
        for (index, step) in item.history.enumerated() {
            current = MergePatch.apply(step.patch, to: current)
            XCTAssertEqual(Entry(jsonValue: current), states[states.count - 2 - index], "step back \(index + 1)")
        }
        XCTAssertEqual(Entry(jsonValue: current), states[0])
    }

    func testHistoryIsCappedAtOneHundredKeepingTheNewest() {
        var item = Fixture.item()
        for step in 1...150 { item.replaceEntry(with: entry(step), at: time(step)) }
        XCTAssertEqual(item.history.count, Item.historyLimit)
        XCTAssertEqual(item.history.first?.created, time(150))
        XCTAssertEqual(item.history.last?.created, time(51))
        XCTAssertEqual(item.entry, entry(150))

        // The 100 patches still lead back, one state at a time, to entry 50.
        var current = item.entry.jsonValue
        for (index, step) in item.history.enumerated() {
            current = MergePatch.apply(step.patch, to: current)
            XCTAssertEqual(Entry(jsonValue: current), entry(149 - index))
        }
        XCTAssertEqual(Entry(jsonValue: current), entry(50))
        XCTAssertEqual(ItemValidation.problems(in: item), [])
    }

    func testItemWithHistorySurvivesTheCodec() throws {
        var item = Fixture.item()
        for step in 1...3 { item.replaceEntry(with: entry(step), at: time(step)) }
        XCTAssertEqual(try ItemCodec.decode(ItemCodec.encode(item)), item)
    }
}

/// Tags in history (issue 43 finding 10): a tag added or removed is a change listed once, with
/// the tags from before, and a restore puts them back.
final class ItemHistoryTagTests: XCTestCase {
    private let first = Timestamp(milliseconds: 1_700_000_000_000)
    private var second: Timestamp { Timestamp(milliseconds: first.milliseconds + 1000) }

    func testATagChangeAloneIsOneEntryWithTheTagsBefore() {
        var item = Fixture.item()
        item.tags = ["money"]
        item.replace(entry: item.entry, tags: ["money", "work"], at: first)
        XCTAssertEqual(item.tags, ["money", "work"])
        XCTAssertEqual(item.history, [HistoryEntry(created: first, patch: .object([:]), tags: ["money"])])
        let versions = ItemHistory.versions(of: item)
        XCTAssertEqual(versions.map(\.changedFields), [["tags"]])
        XCTAssertEqual(versions.map(\.tags), [["money"]])
    }

    func testReorderedTagsAreNoChange() {
        var item = Fixture.item()
        item.tags = ["a", "b"]
        item.replace(entry: item.entry, tags: ["b", "a"], at: first)
        XCTAssertEqual(item.history, [])
        XCTAssertEqual(item.tags, ["b", "a"])
    }

    func testAnEntryAndTagChangeIsOneEntryAndRestoresBoth() throws {
        var item = Fixture.item(password: "old")
        item.tags = ["money"]
        var entry = item.entry
        entry.password = "new"
        item.replace(entry: entry, tags: [], at: first)
        entry.username = "later"
        item.replace(entry: entry, tags: [], at: second)
        XCTAssertEqual(item.history.count, 2)
        XCTAssertEqual(ItemHistory.versions(of: item).map(\.changedFields), [["username"], ["password", "tags"]])
        let restored = try XCTUnwrap(ItemHistory.restoring(2, of: item))
        XCTAssertEqual(restored.tags, ["money"])
        XCTAssertEqual(restored.entry.password, "old")
    }

    /// The merge that keeps one of two entries saying the same thing tells tag changes apart.
    func testMergingHistoriesKeepsDifferentTagChanges() {
        let local = [HistoryEntry(created: second, patch: .object([:]), tags: ["a"])]
        let remote = [HistoryEntry(created: first, patch: .object([:]), tags: ["b"])]
        XCTAssertEqual(ItemMerge.mergeHistories(local: local, remote: remote).count, 2)
        let same = [HistoryEntry(created: first, patch: .object([:]), tags: ["a"])]
        XCTAssertEqual(ItemMerge.mergeHistories(local: local, remote: same).count, 1)
    }

    func testTheItemJSONCarriesTheTags() throws {
        var item = Fixture.item()
        item.history = [HistoryEntry(created: first, patch: .object([:]), tags: ["x", "y"])]
        let encoded = try ItemCodec.encode(item)
        XCTAssertTrue(String(decoding: encoded, as: UTF8.self).contains(#""patch":{},"tags":["x","y"]}"#))
        XCTAssertEqual(try ItemCodec.decode(encoded), item)
    }
}
