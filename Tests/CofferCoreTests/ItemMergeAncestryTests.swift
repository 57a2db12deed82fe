import CofferCore
import XCTest

/// The merge when the remote version was made on top of the local one: a push whose answer was
/// lost (found by the crash harness at `sync.push.items.after-send`: the device died after the
/// server took its edit and before it recorded that; another device then changed the same field
/// on top, and the recovering device's older value won over it).
final class ItemMergeAncestryTests: XCTestCase {
    private func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + seconds * 1000) }

    /// stable: the version both started from; local: ours, pushed (the server took it); remote:
    /// another device's edit of ours.
    private func versions() -> (stable: Item, local: Item, remote: Item) {
        let stable = Item(id: "id-1", title: "Mail", entry: Entry(username: "ann", password: "p0"), created: at(0))
        var local = stable
        local.replaceEntry(with: Entry(username: "ann", password: "p-local"), at: at(10))
        local.modified = at(10)
        var remote = local
        remote.replaceEntry(with: Entry(username: "ann", password: "p-remote-on-top"), at: at(20))
        remote.modified = at(20)
        return (stable, local, remote)
    }

    func testAnEditMadeOnTopOfOurPushedVersionWins() {
        let (stable, local, remote) = versions()
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: at(30))
        XCTAssertEqual(outcome.merged.entry.password, "p-remote-on-top", "the older local value beat the edit made on top of it")
        XCTAssertEqual(outcome.merged.entry, remote.entry)
        XCTAssertEqual(outcome.conflicts, [ItemMerge.FieldConflict(field: .password, local: "p-local", remote: "p-remote-on-top",
                                                                   changedOn: .remote, chosen: .remote)],
                       "a review row says the other device's value was taken")
        XCTAssertEqual(outcome.merged.history, remote.history, "no entry change, so no new history entry")
    }

    func testTitleTagsAndOriginsChangedOnTopWinToo() {
        var (stable, local, remote) = versions()
        stable.tags = ["a"]
        local.tags = ["a", "local"]
        remote.tags = ["remote"]          // made from local's: removed "a" and "local", added "remote"
        remote.title = "Mail (renamed on top)"
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: at(30))
        XCTAssertEqual(outcome.merged.title, "Mail (renamed on top)")
        XCTAssertEqual(outcome.merged.tags, ["remote"])
    }

    /// A true conflict (remote made from stable, not from local) still keeps local where it changed.
    func testATrueConflictStillKeepsTheLocalChange() {
        let (stable, local, _) = versions()
        var remote = stable
        remote.replaceEntry(with: Entry(username: "bob", password: "p-remote"), at: at(15))
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: at(30))
        XCTAssertEqual(outcome.merged.entry.password, "p-local")
        XCTAssertEqual(outcome.merged.entry.username, "bob")
        XCTAssertEqual(outcome.conflicts.map(\.field), [.username, .password])
        XCTAssertEqual(outcome.conflicts.map(\.changedOn), [.remote, .both], "only the password changed on both sides")
    }

    /// Found by the randomized sync histories (seed 20250774, about one run in five): two devices
    /// change the same field from the same value in the same millisecond, so both versions carry
    /// an identical history entry. Remote was not made from local — it holds another value and no
    /// entry changing local's away — so local's edit must be merged, not dropped whole.
    func testAConcurrentEditWithAnIdenticalHistoryEntryIsNotMistakenForAncestry() {
        let stable = Item(id: "id-1", title: "Mail", tags: ["ev-2"], entry: Entry(username: "u8", password: "p"), created: at(0))
        var local = stable
        local.tags.append("ev-16")
        local.replaceEntry(with: Entry(username: "u16", password: "p"), at: at(10))
        var remote = stable
        remote.tags.append("ev-11")
        remote.title = "title-13"
        remote.replaceEntry(with: Entry(username: "u11", password: "p"), at: at(10))
        XCTAssertEqual(local.history.first, remote.history.first, "the same entry on both sides")
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: at(30))
        XCTAssertEqual(Set(outcome.merged.tags), ["ev-2", "ev-11", "ev-16"], "local's tag was dropped")
        XCTAssertEqual(outcome.merged.title, "title-13")
        XCTAssertTrue(["u16", "u11"].contains(outcome.merged.entry.username))

        // Made from local and then changed again: the entry changing u16 away shows the descent.
        var onTop = local
        onTop.replaceEntry(with: Entry(username: "u20", password: "p"), at: at(20))
        onTop.tags = ["ev-2", "ev-16", "ev-20"]
        let descended = ItemMerge.merge(local: local, stable: stable, remote: onTop, now: at(30))
        XCTAssertEqual(descended.merged.entry.username, "u20")
        XCTAssertEqual(descended.merged.tags, ["ev-2", "ev-16", "ev-20"])
    }

    /// Local's newest entry already in stable means local changed no entry field since: no ancestry claim.
    func testALocalChangeWithoutANewEntryIsNotMistakenForAncestry() {
        let (stable0, local0, _) = versions()
        let stable = local0                 // our entry change is already stable
        var local = stable
        local.title = "Mail (local title)"  // a title change leaves no history entry
        var remote = stable
        remote.replaceEntry(with: Entry(username: "ann", password: "p-remote"), at: at(25))
        let outcome = ItemMerge.merge(local: local, stable: stable, remote: remote, now: at(30))
        XCTAssertEqual(outcome.merged.title, "Mail (local title)")
        XCTAssertEqual(outcome.merged.entry.password, "p-remote")
        _ = stable0
    }

    /// Tag changes leave history entries too (issue 43): a remote made on top of local's tag
    /// change is recognised by that entry, and an identical tag-only entry from a concurrent
    /// change elsewhere (same tags before, same millisecond) is not taken for descent.
    func testATagChangeEntryShowsDescentOnlyWhenRemoteKeepsTheTags() {
        let stable = Item(id: "id-1", title: "Mail", tags: ["a"], entry: Entry(username: "ann", password: "p"), created: at(0))
        var local = stable
        local.replace(entry: local.entry, tags: ["a", "local"], at: at(10))
        var onTop = local
        onTop.replace(entry: Entry(username: "bob", password: "p"), tags: ["local"], at: at(20))
        let descended = ItemMerge.merge(local: local, stable: stable, remote: onTop, now: at(30))
        XCTAssertEqual(descended.merged.tags, ["local"], "the removal made on top of ours was undone")
        XCTAssertEqual(descended.merged.entry.username, "bob")

        var concurrent = stable
        concurrent.replace(entry: concurrent.entry, tags: ["a", "other"], at: at(10))
        XCTAssertEqual(local.history.first?.tags, concurrent.history.first?.tags)
        XCTAssertEqual(local.history.first?.created, concurrent.history.first?.created)
        let merged = ItemMerge.merge(local: local, stable: stable, remote: concurrent, now: at(30))
        XCTAssertEqual(Set(merged.merged.tags), ["a", "local", "other"], "local's tag was dropped as if remote came from it")
    }
}
