import CofferTestSupport
import XCTest
@testable import CofferCore

/// Issue 30's merge table: a card's fields and custom fields merged field by field with their
/// change times, custom fields by id — added, changed and removed on each side.
final class ItemKindMergeTests: XCTestCase {
    private func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + seconds * 1000) }
    private var now: Timestamp { at(100) }

    private let bank = CustomField(id: "f-bank", label: "Bank", value: "ACME")
    private let hint = CustomField(id: "f-hint", label: "PIN hint", value: "birthday", type: .hidden)

    private var stable: Item {
        Item(id: "card-1", title: "Visa", entry: Entry(kind: "card", fields: ["cardholder": "A. Person", "number": "4111"],
                                                       custom: [bank, hint]),
             created: at(0))
    }

    /// `item` edited as the vault edits: history for the entry change, stamps for what changed.
    private func edited(_ item: Item, at time: Timestamp, by device: String, _ change: (inout Item) -> Void) -> Item {
        var changed = item
        change(&changed)
        var result = item
        result.title = changed.title
        result.replaceEntry(with: changed.entry, at: time)
        result.stampChanges(from: item, at: time, by: device)
        result.modified = time
        return result
    }

    private struct Row {
        let name: String
        let local: (inout Item) -> Void
        let remote: (inout Item) -> Void
        /// The local side changes at 10 s, the remote at `remoteAt`.
        var remoteAt: Int64 = 20
        /// Asserts on the merged item (a failure names the row through `name` in the other checks).
        let expected: (Item) -> Void
    }

    private var rows: [Row] {
        [
            Row(name: "a custom field added on each side: both kept, ours first",
                local: { $0.entry.custom.append(CustomField(id: "f-l", label: "Branch", value: "Main St")) },
                remote: { $0.entry.custom.append(CustomField(id: "f-r", label: "IBAN", value: "DE00", type: .hidden)) },
                expected: { XCTAssertEqual($0.entry.custom.map(\.id), ["f-bank", "f-hint", "f-l", "f-r"]) }),
            Row(name: "the same custom field changed on both: the later (remote) wins",
                local: { $0.entry[custom: "f-bank"]?.value = "ACME (local)" },
                remote: { $0.entry[custom: "f-bank"]?.value = "ACME (remote)" },
                expected: { XCTAssertEqual($0.entry[custom: "f-bank"]?.value, "ACME (remote)") }),
            Row(name: "the same custom field changed on both: the later (local) wins",
                local: { $0.entry[custom: "f-bank"]?.value = "ACME (local)" },
                remote: { $0.entry[custom: "f-bank"]?.value = "ACME (remote)" }, remoteAt: 5,
                expected: { XCTAssertEqual($0.entry[custom: "f-bank"]?.value, "ACME (local)") }),
            Row(name: "a custom field removed on one side, untouched on the other: removed",
                local: { $0.entry[custom: "f-hint"] = nil },
                remote: { $0.title = "Visa (renamed)" },
                expected: {
                    XCTAssertNil($0.entry[custom: "f-hint"])
                    XCTAssertEqual($0.title, "Visa (renamed)")
                }),
            Row(name: "removed remotely after a local change: the later removal wins",
                local: { $0.entry[custom: "f-hint"]?.value = "anniversary" },
                remote: { $0.entry[custom: "f-hint"] = nil },
                expected: { XCTAssertNil($0.entry[custom: "f-hint"]) }),
            Row(name: "removed remotely before a local change: the later change wins",
                local: { $0.entry[custom: "f-hint"]?.value = "anniversary" },
                remote: { $0.entry[custom: "f-hint"] = nil }, remoteAt: 5,
                expected: { XCTAssertEqual($0.entry[custom: "f-hint"]?.value, "anniversary") }),
            Row(name: "a label renamed on one side, the value changed on the other: both are one field, the later wins",
                local: { $0.entry[custom: "f-bank"]?.label = "Issuer" },
                remote: { $0.entry[custom: "f-bank"]?.value = "ACME Bank" },
                expected: { XCTAssertEqual($0.entry[custom: "f-bank"], CustomField(id: "f-bank", label: "Bank", value: "ACME Bank")) }),
            Row(name: "different kind fields changed on each side: both kept",
                local: { $0.entry.fields["cardholder"] = "A. B. Person" },
                remote: { $0.entry.fields["number"] = "4222" },
                expected: {
                    XCTAssertEqual($0.entry.fields["cardholder"], "A. B. Person")
                    XCTAssertEqual($0.entry.fields["number"], "4222")
                }),
            Row(name: "the same kind field changed on both: the later wins",
                local: { $0.entry.fields["number"] = "4333" },
                remote: { $0.entry.fields["number"] = "4222" },
                expected: { XCTAssertEqual($0.entry.fields["number"], "4222") }),
            Row(name: "a kind field added on one side (the expiry): kept",
                local: { $0.entry.fields["expiry_month"] = "7" },
                remote: { $0.entry.notes = "new card" },
                expected: {
                    XCTAssertEqual($0.entry.fields["expiry_month"], "7")
                    XCTAssertEqual($0.entry.notes, "new card")
                }),
        ]
    }

    func testTheMergeTable() {
        for row in rows {
            let local = edited(stable, at: at(10), by: "device-a", row.local)
            let remote = edited(stable, at: at(row.remoteAt), by: "device-b", row.remote)
            let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
            row.expected(outcome.merged)
            // Every device reaches the same result whichever side merges.
            let mirrored = ItemMerge.merge(local: remote, stable: stable, remote: local, now: now)
            XCTAssertEqual(mirrored.merged.entry.fields, outcome.merged.entry.fields, row.name)
            XCTAssertEqual(Set(mirrored.merged.entry.custom.map(\.id)), Set(outcome.merged.entry.custom.map(\.id)), row.name)
            for field in outcome.merged.entry.custom {
                XCTAssertEqual(mirrored.merged.entry[custom: field.id], field, row.name)
            }
        }
    }

    /// The value a later change beat goes to history, and the review names the field by its label,
    /// masking a hidden one.
    func testTheLosingValueGoesToHistoryAndTheReviewShowsTheLabel() throws {
        let local = edited(stable, at: at(10), by: "device-a") { $0.entry[custom: "f-hint"]?.value = "local hint" }
        let remote = edited(stable, at: at(20), by: "device-b") { $0.entry[custom: "f-hint"]?.value = "remote hint" }
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now)
        XCTAssertEqual(outcome.merged.entry[custom: "f-hint"]?.value, "remote hint")
        let previous = try XCTUnwrap(outcome.merged.history.first)
        let restored = try XCTUnwrap(Entry(jsonValue: MergePatch.apply(previous.patch, to: outcome.merged.entry.jsonValue)))
        XCTAssertEqual(restored[custom: "f-hint"]?.value, "local hint", "the beaten value is one step back in history")

        let row = try XCTUnwrap(outcome.conflicts.first { $0.field == .custom("f-hint") })
        XCTAssertEqual(row.label, "PIN hint")
        XCTAssertTrue(row.isSecret, "a hidden field is masked in the review")
        XCTAssertEqual(row.chosen, .remote)

        // Taking our side back restores our whole field.
        var taken = outcome.merged
        taken.take(.local, of: row)
        XCTAssertEqual(taken.entry[custom: "f-hint"]?.value, "local hint")
        XCTAssertEqual(taken.entry[custom: "f-hint"]?.label, "PIN hint")

        let bankRow = ItemMerge.merge(local: edited(stable, at: at(10), by: "a") { $0.entry[custom: "f-bank"]?.value = "X" },
                                      stable: stable,
                                      remote: edited(stable, at: at(20), by: "b") { $0.entry[custom: "f-bank"]?.value = "Y" },
                                      now: now).conflicts.first { $0.field == .custom("f-bank") }
        XCTAssertEqual(bankRow?.isSecret, false, "a text field is shown")
    }

    /// A newer version's members on either side survive a merge made here.
    func testMembersOfANewerVersionSurviveAMerge() {
        var newer = stable
        newer.extra["attachments_v9"] = .array([.object(["id": .string("a1")])])
        newer.entry.extra["chip"] = .object(["emv": .bool(true)])
        let local = edited(stable, at: at(10), by: "a") { $0.title = "Visa (local)" }
        let remote = edited(newer, at: at(20), by: "b") { $0.entry.notes = "from a newer device" }
        let merged = ItemMerge.merge(local: local, stable: stable, remote: remote, now: now).merged
        XCTAssertEqual(merged.extra["attachments_v9"], newer.extra["attachments_v9"])
        XCTAssertEqual(merged.entry.extra["chip"], newer.entry.extra["chip"])
        XCTAssertEqual(merged.title, "Visa (local)")
        XCTAssertEqual(merged.entry.notes, "from a newer device")
    }
}
