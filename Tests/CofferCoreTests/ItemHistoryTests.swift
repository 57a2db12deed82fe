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
