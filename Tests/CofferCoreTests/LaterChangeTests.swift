import CofferTestSupport
import XCTest
@testable import CofferCore

/// The Airmail journal's field rule as a table, without a database: a field both devices changed keeps the
/// later change, whoever merges, and a clock far ahead cannot win.
final class LaterChangeTests: XCTestCase {
    private func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + seconds * 1000) }
    private let base = Item(id: "id-1", title: "Mail", entry: Entry(username: "u0"), created: Timestamp(milliseconds: 1_700_000_000_000))

    /// `item` with `field` set as the vault's edit sets it: stamped at `time` by `device`.
    private func edit(_ item: Item, _ field: ItemField, _ value: String, at time: Timestamp, by device: String) -> Item {
        var changed = item
        changed.setField(field, to: value)
        changed.stampChanges(from: item, at: time, by: device)
        changed.modified = time
        return changed
    }

    private func winner(local: Item, remote: Item, stable: Item? = nil, now: Int64 = 100,
                        serverTime: Timestamp? = nil) -> ItemMerge.Choice {
        ItemMerge.LaterChange.decide(.title, local: local, remote: remote, stable: stable ?? base, now: at(now),
                                     remoteServerTime: serverTime).chosen
    }

    func testTheLaterChangeWins() {
        let early = edit(base, .title, "early", at: at(10), by: "device-a")
        let late = edit(base, .title, "late", at: at(20), by: "device-b")
        XCTAssertEqual(winner(local: late, remote: early), .local, "local newer")
        XCTAssertEqual(winner(local: early, remote: late), .remote, "remote newer")
    }

    func testEqualTimesAreBrokenByDeviceThenValueTheSameWayOnBothSides() {
        let onA = edit(base, .title, "zzz", at: at(10), by: "device-a")
        let onB = edit(base, .title, "aaa", at: at(10), by: "device-b")
        XCTAssertEqual(winner(local: onA, remote: onB), .remote, "the greater device id wins")
        XCTAssertEqual(winner(local: onB, remote: onA), .local, "and it wins on the other device too")
        let first = edit(base, .title, "aaa", at: at(10), by: "device-a")
        let second = edit(base, .title, "bbb", at: at(10), by: "device-a")
        XCTAssertEqual(winner(local: first, remote: second), .remote, "same device: the greater value")
        XCTAssertEqual(winner(local: second, remote: first), .local)
    }

    func testItemsWithoutTimesUseModified() {
        var older = base
        older.title = "older"
        older.modified = at(10)
        var newer = base
        newer.title = "newer"
        newer.modified = at(20)
        XCTAssertTrue(older.times.isEmpty && newer.times.isEmpty)
        XCTAssertEqual(winner(local: older, remote: newer), .remote)
        XCTAssertEqual(winner(local: newer, remote: older), .local)
    }

    /// A device whose clock says 2100 stamps its change in 2100; the server's time of the record
    /// that carried it caps it, so a genuinely later edit here wins.
    func testARemoteTimeInTheFutureIsCappedByTheServerTimeOfItsRecord() {
        let future = edit(base, .title, "from 2100", at: Timestamp(milliseconds: 4_102_444_800_000), by: "device-b")
        let ours = edit(base, .title, "ours", at: at(50), by: "device-a")
        XCTAssertEqual(winner(local: ours, remote: future, now: 60, serverTime: at(40)), .local)
        let capped = ItemMerge.LaterChange.decide(.title, local: ours, remote: future, stable: base, now: at(60),
                                                  remoteServerTime: nil)
        XCTAssertEqual(capped.remote.at, at(60), "without a server time, capped by now")
        let decided = ItemMerge.LaterChange.decide(.title, local: ours, remote: future, stable: base, now: at(60),
                                                   remoteServerTime: at(40))
        XCTAssertEqual(decided.remote.at, at(40), "the review shows the capped time")
    }

    func testATimeEarlierThanTheBaseCountsAsTheBases() {
        let stable = edit(base, .title, "stable", at: at(30), by: "device-a")
        let slowClock = edit(stable, .title, "slow clock", at: at(5), by: "device-b")
        let ours = edit(stable, .title, "ours", at: at(31), by: "device-a")
        let decided = ItemMerge.LaterChange.decide(.title, local: ours, remote: slowClock, stable: stable, now: at(100),
                                                   remoteServerTime: at(90))
        XCTAssertEqual(decided.remote.at, at(30))
        XCTAssertEqual(decided.chosen, .local)
    }

    /// Random edits on two devices, merged in both orders: every timed field ends at the latest
    /// edit of it, the same on both devices.
    func testRandomEditsMergedInEitherOrderEndAtTheLatestEditPerField() {
        var generator = SeededGenerator(seed: 4)
        let fields: [ItemField] = [.title, .disabled, .username, .password, .notes, .totp]
        for round in 0..<500 {
            var times = Array(1...60).map(Int64.init)
            times.shuffle(using: &generator)
            var latest: [ItemField: (time: Int64, value: String)] = [:]
            func randomEdits(on device: String) -> Item {
                var item = base
                let count = Int.random(in: 0...5, using: &generator)
                // One device's edits happen one after another; the two devices' interleave at random.
                let stepTimes = (0..<count).map { _ in times.removeLast() }.sorted()
                for (step, time) in stepTimes.enumerated() {
                    let field = fields.randomElement(using: &generator) ?? .title
                    let value = field == .disabled ? (Bool.random(using: &generator) ? "yes" : "no") : "\(device)-\(round)-\(step)"
                    guard item.value(of: field) != value else { continue }  // no change, no stamp
                    item = edit(item, field, value, at: at(time), by: device)
                    if time > (latest[field]?.time ?? 0) { latest[field] = (time, value) }
                }
                return item
            }
            let onA = randomEdits(on: "device-a")
            let onB = randomEdits(on: "device-b")
            let mergedOnA = ItemMerge.merge(local: onA, stable: base, remote: onB, now: at(100), remoteServerTime: at(99)).merged
            let mergedOnB = ItemMerge.merge(local: onB, stable: base, remote: onA, now: at(100), remoteServerTime: at(99)).merged
            for field in fields {
                let expected = latest[field]?.value ?? base.value(of: field)
                XCTAssertEqual(mergedOnA.value(of: field), expected, "round \(round): \(field) merged on A")
                XCTAssertEqual(mergedOnB.value(of: field), expected, "round \(round): \(field) merged on B")
            }
        }
    }
}
