import CofferTestSupport
import XCTest
@testable import CofferCore

/// The merge over values: every scalar field against who changed it, lists three-way, and a
/// review row for everything the merge took from either side (so a ⚑ can always be reviewed).
final class ItemMergeTests: XCTestCase {
    private func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + seconds * 1000) }
    private var now: Timestamp { at(100) }

    private let stable = Item(id: "id-1", title: "Mail", origins: ["https://mail.example"], tags: ["home"],
                              entry: Entry(username: "u0", password: "p0", notes: "n0"), created: Timestamp(milliseconds: 1_700_000_000_000))

    /// `item` edited the way the vault edits: an entry change leaves a history entry at `time`.
    private func edited(_ item: Item, at time: Timestamp, _ change: (inout Item) -> Void) -> Item {
        var changed = item
        change(&changed)
        var result = changed
        result.entry = item.entry
        result.history = item.history
        result.replaceEntry(with: changed.entry, at: time)
        result.stampChanges(from: item, at: time, by: "device")
        result.modified = time
        return result
    }

    /// Review rows without the stamps the merge compared (tests of who changed what).
    private func unstamped(_ conflicts: [ItemMerge.FieldConflict]) -> [ItemMerge.FieldConflict] {
        conflicts.map { conflict in
            var row = conflict
            row.localStamp = nil
            row.remoteStamp = nil
            return row
        }
    }

    // MARK: Scalar fields

    private struct Field {
        let name: ItemField
        let stable: String
        let local: String
        let remote: String
        var isEntry: Bool { Entry.fieldNames.contains(name.rawValue) }
    }

    private let fields = [
        Field(name: .title, stable: "Mail", local: "Mail (here)", remote: "Mail (there)"),
        Field(name: .disabled, stable: "no", local: "yes", remote: "yes"),
        Field(name: .username, stable: "u0", local: "u-local", remote: "u-remote"),
        Field(name: .password, stable: "p0", local: "p-local", remote: "p-remote"),
        Field(name: .notes, stable: "n0", local: "n-local", remote: "n-remote"),
        Field(name: .totp, stable: "", local: "JBSWY3DPEHPK3PXP", remote: "KRSXG5CTMVRXEZLU"),
        Field(name: .kind, stable: "login", local: "note", remote: "card"),
    ]

    /// The field as review rows spell it.
    private func value(of field: Field, in item: Item) -> String {
        switch field.name {
        case .title: return item.title
        case .disabled: return item.disabled ? "yes" : "no"
        case .username: return item.entry.username
        case .password: return item.entry.password
        case .notes: return item.entry.notes
        case .totp: return item.entry.totp ?? ""
        default: return item.entry.kind
        }
    }

    private func setting(_ field: Field, to value: String, in item: Item, at time: Timestamp) -> Item {
        edited(item, at: time) { $0.setField(field.name, to: value) }
    }

    func testAFieldChangedOnlyHereIsKeptAndRecordedAsThisDevicesChange() {
        for field in fields {
            let local = setting(field, to: field.local, in: stable, at: at(10))
            let remote = edited(stable, at: at(20)) { $0.lastUsed = at(20) }
            let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
            XCTAssertEqual(value(of: field, in: outcome.merged), field.local, field.name.rawValue)
            XCTAssertEqual(outcome.conflicts, [ItemMerge.FieldConflict(field: field.name, local: field.local, remote: field.stable,
                                                                       changedOn: .local, chosen: .local)], field.name.rawValue)
            XCTAssertEqual(outcome.merged.history, local.history, "\(field.name): nothing of remote's was dropped")
        }
    }

    func testAFieldChangedOnlyThereIsTakenAndRecordedAsTheOtherDevicesChange() {
        for field in fields {
            let local = edited(stable, at: at(10)) { $0.lastUsed = at(10) }
            let remote = setting(field, to: field.remote, in: stable, at: at(20))
            let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
            XCTAssertEqual(value(of: field, in: outcome.merged), field.remote, field.name.rawValue)
            XCTAssertEqual(outcome.conflicts, [ItemMerge.FieldConflict(field: field.name, local: field.stable, remote: field.remote,
                                                                       changedOn: .remote, chosen: .remote)], field.name.rawValue)
            XCTAssertEqual(outcome.merged.history, remote.history, "\(field.name): no step of its own")
        }
    }

    func testAFieldChangedAlikeOnBothSidesNeedsNoRow() {
        for field in fields {
            let local = setting(field, to: field.local, in: stable, at: at(10))
            let remote = setting(field, to: field.local, in: stable, at: at(20))
            let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
            XCTAssertEqual(value(of: field, in: outcome.merged), field.local, field.name.rawValue)
            XCTAssertEqual(outcome.conflicts, [], field.name.rawValue)
            XCTAssertFalse(outcome.merged.history.contains { $0.created == now }, "\(field.name): nothing dropped")
        }
    }

    /// The Airmail journal: the later change keeps the field (kind has no time: local keeps it); the other
    /// value goes into the merge's history step once.
    func testAFieldChangedDifferentlyOnBothSidesKeepsTheLaterChangeAndRecordsTheOtherInHistoryOnce() {
        for field in fields where field.local != field.remote {
            for (localTime, remoteTime) in [(Int64(20), Int64(10)), (10, 20)] {
                let label = "\(field.name) local at \(localTime), remote at \(remoteTime)"
                let local = setting(field, to: field.local, in: stable, at: at(localTime))
                let remote = setting(field, to: field.remote, in: stable, at: at(remoteTime))
                let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
                let remoteWins = FieldTimes.timed.contains(field.name) && remoteTime > localTime
                XCTAssertEqual(value(of: field, in: outcome.merged), remoteWins ? field.remote : field.local, label)
                XCTAssertEqual(unstamped(outcome.conflicts),
                               [ItemMerge.FieldConflict(field: field.name, local: field.local, remote: field.remote,
                                                        changedOn: .both, chosen: remoteWins ? .remote : .local)], label)
                let steps = outcome.merged.history.filter { $0.created == now }
                if field.isEntry {
                    XCTAssertEqual(steps.map(\.patch), [.object([field.name.rawValue: .string(remoteWins ? field.local : field.remote)])],
                                   label)
                } else {
                    XCTAssertEqual(steps, [], "\(field.name) is not part of the entry history")
                }
                if FieldTimes.timed.contains(field.name) {
                    XCTAssertEqual(outcome.merged.times[field.name]?.at, at(max(localTime, remoteTime)), "\(label): the winner's time")
                }
            }
        }
    }

    /// Both sides changed the username from the same value: each recorded "username (was “u0”)",
    /// and the merged history listed it twice, one under the other. Once is enough; and a merge
    /// redone on its own result adds no second copy of its step.
    func testOneMergeLeavesNoRepeatedAdjacentHistoryEntries() {
        let local = edited(stable, at: at(10)) { $0.entry.username = "fromA" }
        let remote = edited(stable, at: at(20)) { $0.entry.username = "fromB" }
        let merged = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now).merged
        let patches = merged.history.map(\.patch)
        XCTAssertEqual(patches.filter { $0 == .object(["username": .string("u0")]) }.count, 1, "\(patches)")
        for (older, newer) in zip(patches.dropFirst(), patches) {
            XCTAssertNotEqual(older, newer, "a repeated entry: \(patches)")
        }
        let again = ItemMerge.merge(local: merged, stable: stable, remote: remote, now: at(200)).merged
        let againPatches = again.history.map(\.patch)
        for (older, newer) in zip(againPatches.dropFirst(), againPatches) {
            XCTAssertNotEqual(older, newer, "a repeated entry after merging again: \(againPatches)")
        }
    }

    func testWithoutABaseTheLaterWinsAndEveryDifferenceIsAReviewRow() {
        for field in fields {
            let local = setting(field, to: field.local, in: stable, at: at(20))
            let remote = setting(field, to: field.remote, in: stable, at: at(10))
            let outcome = ItemMerge.merge(local: local, stable: nil, remote: remote, now: now)
            XCTAssertEqual(value(of: field, in: outcome.merged), field.local, field.name.rawValue)
            let expected = field.local == field.remote ? [] : [
                ItemMerge.FieldConflict(field: field.name, local: field.local, remote: field.remote, changedOn: .both, chosen: .local),
            ]
            XCTAssertEqual(unstamped(outcome.conflicts), expected, field.name.rawValue)
        }
    }

    func testOnlyTheLastUseDifferingLeavesNoRowButStillAnOutcome() {
        let local = edited(stable, at: at(10)) { $0.lastUsed = at(10) }
        let remote = edited(stable, at: at(20)) { $0.lastUsed = at(20) }
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
        XCTAssertEqual(outcome.conflicts, [])
        XCTAssertEqual(outcome.merged.lastUsed, at(20))
        XCTAssertEqual(ItemReview(outcome: outcome), ItemReview(id: "id-1", title: "Mail", conflicts: []))
    }

    // MARK: Lists

    func testListsChangedOnOneSideAreRecordedWithTheCombinedValue() {
        let local = edited(stable) { $0.tags = ["home", "family"] }
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: stable, now: now)
        XCTAssertEqual(outcome.merged.tags, ["home", "family"])
        XCTAssertEqual(outcome.conflicts, [
            ItemMerge.FieldConflict(field: .tags, lists: ItemMerge.ListValues(local: ["home", "family"], remote: ["home"],
                                                                               combined: ["home", "family"]), changedOn: .local),
        ])
        XCTAssertEqual(outcome.conflicts.first?.local, "home, family")
        XCTAssertEqual(outcome.conflicts.first?.combined, "home, family")
        XCTAssertEqual(outcome.conflicts.first?.chosen, .combined)

        let remote = edited(stable) { $0.origins = [] }
        let taken = ItemMerge.merge(local: stable, stable: stable, remote: remote, now: now)
        XCTAssertEqual(taken.merged.origins, [])
        XCTAssertEqual(taken.conflicts.map(\.field), [.origins])
        XCTAssertEqual(taken.conflicts.first?.changedOn, .remote)
        XCTAssertEqual(taken.conflicts.first?.lists?.combined, [])
    }

    func testListsChangedOnBothSidesCombineAdditionsAndRemovals() {
        var base = stable
        base.tags = ["home", "old"]
        let local = edited(base) { $0.tags = ["home", "old", "family"] }
        let remote = edited(base) { $0.tags = ["home", "bank"] }
        let outcome = ItemMerge.merge(local: local, stable: base, remote: remote, now: now)
        XCTAssertEqual(outcome.merged.tags, ["home", "family", "bank"])
        XCTAssertEqual(outcome.conflicts, [
            ItemMerge.FieldConflict(field: .tags, lists: ItemMerge.ListValues(local: ["home", "old", "family"], remote: ["home", "bank"],
                                                                               combined: ["home", "family", "bank"]), changedOn: .both),
        ])
        // Without a base nothing counts as removed: the union.
        let union = ItemMerge.merge(local: local, stable: nil, remote: remote, now: now)
        XCTAssertEqual(union.merged.tags, ["home", "old", "family", "bank"])
        XCTAssertEqual(union.conflicts.first?.changedOn, .both)
        // The same change on both sides: nothing to choose.
        let alike = ItemMerge.merge(local: local, stable: base, remote: local, now: now)
        XCTAssertEqual(alike.conflicts, [])
    }

    private func edited(_ item: Item, _ change: (inout Item) -> Void) -> Item {
        var result = item
        change(&result)
        return result
    }

    // MARK: History

    /// The issue's case: username changed here, password there. Each side's own history entry
    /// already records the old value; the merge must not record it again.
    func testOneSideChangesWriteEachOldValueIntoHistoryExactlyOnce() {
        let local = edited(stable, at: at(10)) { $0.entry.username = "u1" }
        let remote = edited(stable, at: at(20)) { $0.entry.password = "p1" }
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
        XCTAssertEqual(outcome.merged.entry, Entry(username: "u1", password: "p1", notes: "n0"))
        XCTAssertEqual(outcome.merged.history, [
            HistoryEntry(created: at(10), patch: .object(["username": .string("u0")])),
            HistoryEntry(created: at(20), patch: .object(["password": .string("p0")])),
        ])
        XCTAssertEqual(occurrences(of: "username", "u0", in: outcome.merged.history), 1)
        XCTAssertEqual(occurrences(of: "password", "p0", in: outcome.merged.history), 1)
        XCTAssertEqual(outcome.conflicts.map(\.field), [.username, .password])
        XCTAssertEqual(outcome.conflicts.map(\.changedOn), [.local, .remote])
    }

    func testTheMergeStepRecordsOnlyWhatItDroppedOfRemotes() {
        // username changed on both (local later, kept: remote's dropped), password only there (taken), notes only here.
        let local = edited(stable, at: at(20)) { $0.entry.username = "u-local"; $0.entry.notes = "n-local" }
        let remote = edited(stable, at: at(10)) { $0.entry.username = "u-remote"; $0.entry.password = "p-remote" }
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
        XCTAssertEqual(outcome.merged.entry, Entry(username: "u-local", password: "p-remote", notes: "n-local"))
        XCTAssertEqual(outcome.merged.history.first, HistoryEntry(created: now, patch: .object(["username": .string("u-remote")])))
        XCTAssertEqual(occurrences(of: "username", "u0", in: outcome.merged.history), 2, "once in each side's own entry")
        XCTAssertEqual(occurrences(of: "username", "u-remote", in: outcome.merged.history), 1)
        XCTAssertEqual(occurrences(of: "notes", "n0", in: outcome.merged.history), 1)
        XCTAssertEqual(occurrences(of: "password", "p0", in: outcome.merged.history), 1)
    }

    /// Without a base every difference counts as changed on both sides: each field goes to the
    /// side that stamped it later (a field never stamped dates from the item's creation), and
    /// every value the merge dropped, from either side, is recorded.
    func testWithoutABaseEveryValueTheMergeDropsIsRecorded() {
        let local = edited(stable, at: at(10)) { $0.entry.username = "u-local" }
        let remote = edited(stable, at: at(20)) { $0.entry.password = "p-remote" }
        let outcome = ItemMerge.merge(local: local, stable: nil, remote: remote, now: now)
        XCTAssertEqual(outcome.merged.entry, Entry(username: "u-local", password: "p-remote", notes: "n0"))
        XCTAssertEqual(outcome.merged.history.first,
                       HistoryEntry(created: now, patch: .object(["username": .string("u0"), "password": .string("p0")])))
    }

    /// Random edits on both sides, with and without a base: every value either side held, now or
    /// in its history, is in the merged entry or its history; the merge's own step records only
    /// values of either side that the merged entry does not hold.
    func testNothingEitherSideHadIsLostFromHistory() {
        var generator = SeededGenerator(seed: 10)
        let names: [ItemField] = [.username, .password, .notes, .totp]
        for round in 0..<300 {
            func randomEdits(_ item: Item, side: String, from start: Int64) -> Item {
                var result = item
                for step in 0..<Int.random(in: 0...3, using: &generator) {
                    let name = names.randomElement(using: &generator) ?? .notes
                    let value = Bool.random(using: &generator) ? "shared-\(step)" : "\(side)-\(round)-\(step)"
                    result = edited(result, at: at(start + Int64(step))) { $0.setField(name, to: value) }
                }
                return result
            }
            let base = randomEdits(stable, side: "base", from: 1)
            let local = randomEdits(base, side: "local", from: 10)
            let remote = randomEdits(base, side: "remote", from: 20)
            let outcome = ItemMerge.merge(local: local, stable: Bool.random(using: &generator) ? base : nil,
                                          remote: remote, now: now)
            let kept = values(in: outcome.merged)
            for (name, had) in values(in: local).merging(values(in: remote), uniquingKeysWith: { $0.union($1) }) {
                XCTAssertTrue(had.isSubset(of: kept[name] ?? []), "round \(round): \(name) lost \(had.subtracting(kept[name] ?? []))")
            }
            for step in outcome.merged.history where step.created == now {
                for (name, value) in step.patch.objectValue ?? [:] {
                    let sides = [remote, local].map { $0.entry.jsonValue.objectValue?[name] ?? .null }
                    XCTAssertTrue(sides.contains(value), "round \(round): \(name)")
                    XCTAssertNotEqual(outcome.merged.entry.jsonValue.objectValue?[name] ?? .null, value, "round \(round)")
                }
            }
        }
    }

    func testAReviewStoredBeforeOneSideRowsStillDecodes() throws {
        let json = #"{"id":"a","title":"Mail","conflicts":[{"field":"password","local":"x","remote":"y","chosen":"local"}]}"#
        let review = try JSONDecoder().decode(ItemReview.self, from: Data(json.utf8))
        XCTAssertEqual(review.conflicts, [ItemMerge.FieldConflict(field: .password, local: "x", remote: "y",
                                                                  changedOn: .both, chosen: .local)])
        XCTAssertNil(review.conflicts.first?.lists)
        let list = ItemMerge.FieldConflict(field: .tags, lists: ItemMerge.ListValues(local: ["a, b"], remote: [], combined: ["a, b"]),
                                           changedOn: .local)
        let again = try JSONDecoder().decode(ItemMerge.FieldConflict.self, from: JSONEncoder().encode(list))
        XCTAssertEqual(again, list)
    }

    // MARK: Helpers

    /// How many history entries record `value` as `field`'s earlier value.
    private func occurrences(of field: String, _ value: String, in history: [HistoryEntry]) -> Int {
        history.filter { $0.patch.objectValue?[field] == .string(value) }.count
    }

    /// Every value each entry field holds now or in a history entry.
    private func values(in item: Item) -> [String: Set<JSONValue>] {
        var result: [String: Set<JSONValue>] = [:]
        for (name, value) in item.entry.jsonValue.objectValue ?? [:] { result[name, default: []].insert(value) }
        for entry in item.history {
            for (name, value) in entry.patch.objectValue ?? [:] { result[name, default: []].insert(value) }
        }
        return result
    }
}
