import Foundation
import XCTest
@testable import CofferCore

/// Saving an edit over a version another process saved since the edit began (architecture §8): every
/// field × who changed it, through two `Vault`s on one file (the screen and a command).
final class EditMergeTests: XCTestCase {
    /// A field as the test sets and reads it, with three distinct values.
    struct Field: Sendable {
        var name: String
        var set: @Sendable (inout Item, String) -> Void
        var get: @Sendable (Item) -> String
        /// Whether the value a conflict drops is recorded in the item's history (entry fields).
        var isInHistory: Bool
    }

    static let fields: [Field] = [
        Field(name: "title", set: { $0.title = $1 }, get: { $0.title }, isInHistory: false),
        Field(name: "username", set: { $0.entry.username = $1 }, get: { $0.entry.username }, isInHistory: true),
        Field(name: "password", set: { $0.entry.password = $1 }, get: { $0.entry.password }, isInHistory: true),
        Field(name: "notes", set: { $0.entry.notes = $1 }, get: { $0.entry.notes }, isInHistory: true),
        Field(name: "totp", set: { $0.entry.totp = "JBSWY3DPEHPK3PX" + $1 }, get: { $0.entry.totp ?? "" }, isInHistory: true),
    ]

    enum Who: CaseIterable { case onlyEdit, onlyOther, bothSame, bothDifferent }

    var directory: URL!
    var screen: Vault!
    var other: Vault!

    override func setUp() async throws {
        directory = try makeTemporaryDirectory()
        let path = directory.appendingPathComponent("vault.db").path
        screen = try Vault.create(at: path, passphrase: Fixture.passphrase("pass"), kdf: Fixture.fastKDF())
        other = try Vault.open(at: path)
        try await other.unlock(passphrase: Fixture.passphrase("pass"))
    }

    func testEveryScalarFieldByWhoChangedIt() async throws {
        for field in Self.fields {
            for who in Who.allCases {
                var base = Fixture.item(title: "T")
                field.set(&base, "B")
                try await screen.add(base)
                let loaded = try await screen.item(base.id)
                let label = "\(field.name), \(who)"

                // The other process always changes something, so the edit meets a newer version.
                var theirs = try await other.item(base.id)
                theirs.lastUsed = Timestamp(milliseconds: Fixture.epoch.milliseconds + 5_000)
                if who != .onlyEdit { field.set(&theirs, who == .bothSame ? "M" : "O") }
                try await other.update(theirs)

                var mine = loaded
                if who != .onlyOther { field.set(&mine, "M") }
                if who == .onlyOther { mine.tags.append("edited") } // an edit elsewhere in the item
                let saved = try await screen.update(mine, from: loaded)
                let stored = try await other.item(base.id)

                XCTAssertTrue(saved.mergedWithNewer, label)
                XCTAssertEqual(saved.item, stored, label)
                let expected = who == .onlyOther ? theirs : mine
                XCTAssertEqual(field.get(stored), field.get(expected), label)
                XCTAssertEqual(stored.lastUsed, theirs.lastUsed, "\(label): the other side's change was reverted")
                XCTAssertEqual(saved.conflicts, who == .bothDifferent ? [field.name] : [], label)
                let reviewed = try await screen.reviews().contains { $0.id == base.id }
                XCTAssertEqual(reviewed, who == .bothDifferent, "\(label): ⚑")
                if who == .bothDifferent {
                    var dropped = stored
                    field.set(&dropped, "O")
                    let value = field.get(dropped)
                    if field.isInHistory {
                        XCTAssertTrue(history(stored).contains(value), "\(label): \(value) is not in history")
                    }
                    let review = try await screen.reviews().first { $0.id == base.id }
                    XCTAssertEqual(review?.conflicts.first { $0.field.rawValue == field.name }?.remote, value, label)
                }
                // No value either side set is lost: the base survives in history where it was replaced.
                if field.isInHistory, who != .bothSame {
                    XCTAssertTrue(history(stored).contains(field.get(base)), "\(label): the base value left history")
                }
            }
        }
    }

    func testDisabledByWhoChangedIt() async throws {
        for who in [Who.onlyEdit, .onlyOther, .bothSame] {
            let base = Fixture.item()
            try await screen.add(base)
            let loaded = try await screen.item(base.id)
            var theirs = try await other.item(base.id)
            theirs.title = "renamed elsewhere"
            if who != .onlyEdit { theirs.disabled = true }
            try await other.update(theirs)
            var mine = loaded
            if who != .onlyOther { mine.disabled = true }
            if who == .onlyOther { mine.entry.notes = "edited" }
            let saved = try await screen.update(mine, from: loaded)
            XCTAssertTrue(saved.item.disabled, "\(who)")
            XCTAssertEqual(saved.item.title, "renamed elsewhere", "\(who)")
            XCTAssertEqual(saved.conflicts, [], "\(who)")
        }
    }

    /// Lists merge three ways: additions and removals from both sides, never a conflict.
    func testOriginsAndTagsMergeThreeWays() async throws {
        let base = Fixture.item(origins: ["a.example", "b.example"], tags: ["work", "old"])
        try await screen.add(base)
        let loaded = try await screen.item(base.id)
        var theirs = try await other.item(base.id)
        theirs.origins = ["a.example", "b.example", "theirs.example"]
        theirs.tags = ["work"]
        try await other.update(theirs)
        var mine = loaded
        mine.origins = ["b.example", "mine.example"]
        mine.tags = ["work", "old", "mine"]
        let saved = try await screen.update(mine, from: loaded)
        XCTAssertEqual(saved.item.origins, ["b.example", "mine.example", "theirs.example"])
        XCTAssertEqual(saved.item.tags, ["work", "mine"])
        XCTAssertEqual(saved.conflicts, [])
    }

    /// No change since the base: the edit applies as made, without a merge.
    func testAnEditOfTheCurrentVersionIsNotAMerge() async throws {
        let base = Fixture.item()
        try await screen.add(base)
        let loaded = try await screen.item(base.id)
        var mine = loaded
        mine.entry.username = "changed"
        let saved = try await screen.update(mine, from: loaded)
        XCTAssertFalse(saved.mergedWithNewer)
        XCTAssertEqual(saved.item.entry.username, "changed")
        XCTAssertEqual(saved.item.history.count, 1)
    }

    /// Accepting a review clears ⚑ in the transaction that saves the choices: a value another
    /// process changed meanwhile under a swapped field gets a ⚑ of its own, which stays.
    func testAcceptingAReviewKeepsTheReviewOfAMergeMadeMeanwhile() async throws {
        let base = Fixture.item()
        try await screen.add(base)
        let loaded = try await screen.item(base.id)
        var theirs = try await other.item(base.id)
        theirs.entry.username = "changed elsewhere"
        try await other.update(theirs)
        var mine = loaded
        mine.entry.username = "chosen in the review"
        let saved = try await screen.save(mine, from: loaded, acceptingReview: true)
        XCTAssertEqual(saved.conflicts, ["username"])
        let review = try await screen.reviews().first { $0.id == base.id }
        XCTAssertEqual(review?.conflicts.first { $0.field == .username }?.remote, "changed elsewhere")

        var accepted = try await screen.item(base.id)
        let current = accepted
        accepted.title = "accepted"
        _ = try await screen.save(accepted, from: current, acceptingReview: true)
        let left = try await screen.reviews().contains { $0.id == base.id }
        XCTAssertFalse(left, "accepting cleared nothing")
    }

    /// Every string in the item's history patches.
    func history(_ item: Item) -> [String] {
        func strings(_ value: JSONValue) -> [String] {
            switch value {
            case .string(let text): return [text]
            case .object(let members): return members.values.flatMap(strings)
            case .array(let values): return values.flatMap(strings)
            default: return []
            }
        }
        return item.history.flatMap { strings($0.patch) }
    }
}
