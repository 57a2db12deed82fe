import CofferCore
import Foundation
import XCTest
@testable import CofferSync

/// The sync steps' rules as tables, without a database or a server: each input combination and
/// the named decision it must give.
final class SyncRulesTests: XCTestCase {
    typealias Local = FetchFacts.Local

    func header(deleted: Bool = false, lastModified: Int64 = 200, revision: UInt64? = 5, parent: UInt8 = 1) -> SyncRecordHeader {
        SyncRecordHeader(id: "a", lastModified: lastModified, isDeleted: deleted,
                         lineage: deleted ? nil : lineage(revision, parent: parent))
    }

    /// A lineage made from the version whose digest is `parent` repeated (0: from nothing).
    func lineage(_ revision: UInt64?, parent: UInt8 = 2) -> Lineage? {
        revision.map { Lineage(revision: $0, parent: Data(repeating: parent, count: Lineage.digestLength)) }
    }

    func stamp(_ revision: UInt64, parent: UInt8 = 2) -> StableStamp {
        StableStamp(lastModified: 100, lineage: lineage(revision, parent: parent))
    }

    // MARK: Fetch

    func testFetchDecisions() {
        let stable = stamp(4)
        let newerStable = stamp(9)
        let cases: [(String, FetchFacts, FetchDecision)] = [
            ("echo of our own write", FetchFacts(header: header(lastModified: 100), stable: stable, local: .different), .dropEcho),
            ("echo, nothing local", FetchFacts(header: header(lastModified: 100), stable: stable, local: .none), .dropEcho),
            ("new record, nothing local", FetchFacts(header: header(), stable: nil, local: .none), .applyToStable),
            ("update, nothing local", FetchFacts(header: header(), stable: stable, local: .none), .applyToStable),
            ("removal, nothing local", FetchFacts(header: header(deleted: true), stable: stable, local: .none), .applyToStable),
            ("tombstone of something never had", FetchFacts(header: header(deleted: true), stable: nil, local: .none),
             .ignoreUnknownTombstone),
            ("tombstone against a local add", FetchFacts(header: header(deleted: true), stable: nil, local: .different),
             .queue(.remove)),
            ("lost acknowledgement of an add", FetchFacts(header: header(), stable: nil, local: .sameContent), .acknowledgeLostWrite),
            ("lost acknowledgement of an update", FetchFacts(header: header(), stable: stable, local: .sameContent),
             .acknowledgeLostWrite),
            ("removal against a local change equal in content", FetchFacts(header: header(deleted: true), stable: stable,
                                                                          local: .sameContent), .queue(.remove)),
            ("update against a local update", FetchFacts(header: header(), stable: stable, local: .different), .queue(.update)),
            ("add against a local add", FetchFacts(header: header(), stable: nil, local: .different), .queue(.add)),
            ("removal against a local update", FetchFacts(header: header(deleted: true), stable: stable, local: .different),
             .queue(.remove)),
            ("older than stable, nothing local", FetchFacts(header: header(), stable: newerStable, local: .none),
             .standOursAgainst(.update)),
            ("older than stable, a local change", FetchFacts(header: header(), stable: newerStable, local: .different),
             .queue(.update)),
            ("equal revision is not older", FetchFacts(header: header(revision: 9), stable: newerStable, local: .none),
             .applyToStable),
            ("no lineage (corrupt) is not older", FetchFacts(header: header(revision: nil), stable: newerStable, local: .none),
             .applyToStable),
            ("a removal is never older", FetchFacts(header: header(deleted: true), stable: newerStable, local: .none),
             .applyToStable),
            ("stable's sibling (re-created over a deletion) is not older",
             FetchFacts(header: header(parent: 2), stable: newerStable, local: .none), .applyToStable),
            ("our creation, removed here before any answer confirmed it",
             FetchFacts(header: header(parent: 0), stable: nil, local: .removalOfUnconfirmed), .rebaseRemoval),
            ("another device's edit of it beats that removal",
             FetchFacts(header: header(parent: 3), stable: nil, local: .removalOfUnconfirmed), .queue(.add)),
            ("its tombstone meets that removal", FetchFacts(header: header(deleted: true), stable: nil, local: .removalOfUnconfirmed),
             .queue(.remove)),
            ("two versions made from nothing are no siblings",
             FetchFacts(header: header(parent: 0), stable: stamp(9, parent: 0), local: .none), .standOursAgainst(.update)),
        ]
        for (name, facts, expected) in cases {
            XCTAssertEqual(FetchRules.decide(facts), expected, name)
        }
        XCTAssertTrue(FetchRules.isOlderThanStable(FetchFacts(header: header(), stable: newerStable, local: .different)))
        XCTAssertFalse(FetchRules.isOlderThanStable(FetchFacts(header: header(), stable: stable, local: .different)))
    }

    /// Items' removals (issue 41): a plain tombstone of an item held is refused, a sealed removal
    /// waits for an unlocked reconcile, and one older than stable, or stable's sibling, is a replay.
    func testFetchDecisionsOnItemRemovals() {
        func removal(sealed: Bool, revision: UInt64 = 5, parent: UInt8 = 2) -> SyncRecordHeader {
            var header = header(deleted: true)
            header.isSealedRemoval = sealed
            header.lineage = sealed ? lineage(revision, parent: parent) : nil
            return header
        }
        func facts(_ header: SyncRecordHeader, stable: StableStamp?, local: Local = .none) -> FetchFacts {
            var facts = FetchFacts(header: header, stable: stable, local: local)
            facts.judgesRemovals = true
            return facts
        }
        let cases: [(String, FetchFacts, FetchDecision)] = [
            ("a plain tombstone of an item held", facts(removal(sealed: false), stable: stamp(4)), .refuseTombstone),
            ("a plain tombstone of an item never had", facts(removal(sealed: false), stable: nil), .ignoreUnknownTombstone),
            ("a plain tombstone against a local edit", facts(removal(sealed: false), stable: stamp(4), local: .different),
             .queue(.remove)),
            ("a sealed removal of an item held", facts(removal(sealed: true, revision: 5, parent: 3), stable: stamp(4, parent: 2)),
             .queue(.remove)),
            ("a sealed removal of an item never had", facts(removal(sealed: true), stable: nil), .ignoreUnknownTombstone),
            ("a sealed removal older than stable", facts(removal(sealed: true, revision: 3, parent: 3), stable: stamp(4, parent: 2)),
             .standOursAgainst(.remove)),
            ("a sealed removal that is stable's sibling", facts(removal(sealed: true, revision: 9, parent: 2), stable: stamp(4, parent: 2)),
             .standOursAgainst(.remove)),
        ]
        for (name, facts, expected) in cases {
            XCTAssertEqual(FetchRules.decide(facts), expected, name)
        }
    }

    /// The plan a decision makes: what becomes stable, which pending rows go and come.
    func testFetchPlanFromDecisions() throws {
        let item = ItemRecord(id: "a", isActive: true, originHashes: [], tagHashes: [], encrypted: "e", lastModified: 200)
        let record = IncomingRecord(header: header(), value: .item(item))
        let stable = stamp(9)
        let facts = FetchFacts(header: header(), stable: stable, local: .none)

        var plan = FetchPlan(collection: .items, marker: "200")
        try plan.add(.standOursAgainst(.update), for: record, facts: facts) { "ours" }
        XCTAssertEqual(plan.toQueue.map(\.source), [.local, .remote])
        XCTAssertEqual(plan.toQueue.first?.record, "ours")
        XCTAssertEqual(plan.toQueue.first?.lastModified, 100, "ours stands on the version stable holds")
        XCTAssertEqual(plan.toQueue.last?.action, .update)
        XCTAssertEqual(plan.received, 1)
        XCTAssertEqual(plan.rolledBack, 1)

        var acknowledged = FetchPlan(collection: .items, marker: "200")
        try acknowledged.add(.acknowledgeLostWrite, for: record, facts: FetchFacts(header: header(), stable: nil, local: .sameContent)) { nil }
        XCTAssertEqual(acknowledged.toStable, [.item(item)])
        XCTAssertEqual(acknowledged.toDrop.map(\.source), [.local, .remote])
        XCTAssertEqual(acknowledged.received, 0)

        var echo = FetchPlan(collection: .items, marker: "200")
        try echo.add(.dropEcho, for: record, facts: facts) { XCTFail("read stable for an echo"); return nil }
        XCTAssertTrue(echo.toStable.isEmpty && echo.toQueue.isEmpty && echo.toDrop.isEmpty)
    }

    /// Stable's own content under a new timestamp (a revocation rewrote the record's permissions)
    /// while a local change waits: the change is rebased, not made a conflict.
    func testFetchRestampDecisions() {
        let stable = stamp(4)
        let edit = PendingChange(key: 7, collection: .items, id: "a", source: .local, action: .update, lastModified: 100,
                                 record: "mine")
        let removal = PendingChange.itemRemoval(id: "a", basedOn: 100)
        let cases: [(String, FetchFacts, FetchDecision)] = [
            ("stable's content restamped under a local edit",
             FetchFacts(header: header(), stable: stable, local: .different, restampedLocal: edit), .restamp(edit)),
            ("stable's content restamped under a local removal",
             FetchFacts(header: header(), stable: stable, local: .different, restampedLocal: removal), .restamp(removal)),
            ("an echo stays an echo", FetchFacts(header: header(lastModified: 100), stable: stable, local: .different,
                                                 restampedLocal: edit), .dropEcho),
            ("a tombstone is no restamp", FetchFacts(header: header(deleted: true), stable: stable, local: .different,
                                                     restampedLocal: edit), .queue(.remove)),
            ("a lost write's acknowledgement comes first",
             FetchFacts(header: header(), stable: stable, local: .sameContent, restampedLocal: edit), .acknowledgeLostWrite),
            ("the same facts without the restamp are a conflict",
             FetchFacts(header: header(), stable: stable, local: .different), .queue(.update)),
        ]
        for (name, facts, expected) in cases {
            XCTAssertEqual(FetchRules.decide(facts), expected, name)
        }
    }

    /// A restamp: stable takes the server's record (its new timestamp), the remote row goes, and
    /// the local change is queued again as a new row based on that timestamp, to be pushed as it is.
    func testFetchPlanRestampsStableAndRebasesTheLocalChange() throws {
        let item = ItemRecord(id: "a", isActive: true, originHashes: [], tagHashes: [], encrypted: "e", lastModified: 200)
        let record = IncomingRecord(header: header(), value: .item(item))
        let edit = PendingChange(key: 7, collection: .items, id: "a", source: .local, action: .update, lastModified: 100,
                                 record: "mine")
        let facts = FetchFacts(header: header(), stable: stamp(4), local: .different, restampedLocal: edit)

        var plan = FetchPlan(collection: .items, marker: "200")
        try plan.add(.restamp(edit), for: record, facts: facts) { XCTFail("read stable for a restamp"); return nil }
        XCTAssertEqual(plan.toStable, [.item(item)])
        XCTAssertEqual(plan.toDrop.map(\.id), ["a"])
        XCTAssertEqual(plan.toDrop.map(\.source), [.remote], "the local row is not dropped: saving the rebased change rewrites it")
        XCTAssertEqual(plan.toQueue, [PendingChange(key: nil, collection: .items, id: "a", source: .local, action: .update,
                                                    lastModified: 200, record: "mine")])
        XCTAssertEqual(plan.received, 0, "nothing new arrived: the content is stable's")
        XCTAssertEqual(plan.rolledBack, 0)
    }

    // MARK: Examine

    func testExamineDecisionForEveryActionPair() {
        let actions: [PendingChange.Action] = [.add, .update, .remove]
        let expected: [PendingChange.Action: [PendingChange.Action?: ExamineDecision]] = [
            .add: [nil: .applyRemote, .add: .conflict, .update: .conflict, .remove: .applyRemoteDropLocal],
            .update: [nil: .applyRemote, .add: .conflict, .update: .conflict, .remove: .applyRemoteDropLocal],
            .remove: [nil: .applyRemote, .add: .keepLocalOverTombstone, .update: .keepLocalOverTombstone, .remove: .removeBoth],
        ]
        for remote in actions {
            for local in [nil] + actions.map(Optional.some) {
                XCTAssertEqual(ExamineRules.decide(remote: remote, local: local), expected[remote]?[local],
                               "remote \(remote), local \(String(describing: local))")
                // A change that must be authenticated first waits when nothing local meets it;
                // beside a local change it goes the usual way (reconcile authenticates it there).
                let held = ExamineRules.decide(remote: remote, local: local, holdsUntilAuthenticated: true)
                XCTAssertEqual(held, local == nil ? .awaitAuthentication : expected[remote]?[local],
                               "held: remote \(remote), local \(String(describing: local))")
            }
        }
    }

    /// A personal vault's keystore never goes over a stable copy while locked (issue 41): every
    /// decision that would have applied it to stable queues it for an unlocked reconcile instead.
    func testFetchHoldsWhatMustBeAuthenticated() {
        let header = SyncRecordHeader(id: "default", lastModified: 500, isDeleted: false,
                                      lineage: Lineage(revision: 9, parent: Data(count: 16)))
        let stable = StableStamp(lastModified: 400, lineage: Lineage(revision: 5, parent: Data(count: 16)))
        var facts = FetchFacts(header: header, stable: stable, local: .none)
        XCTAssertEqual(FetchRules.decide(facts), .applyToStable)
        facts.holdsUntilAuthenticated = true
        XCTAssertEqual(FetchRules.decide(facts), .queue(.update))
        var tombstone = facts
        tombstone.header = SyncRecordHeader(id: "default", lastModified: 500, isDeleted: true, lineage: nil)
        XCTAssertEqual(FetchRules.decide(tombstone), .queue(.remove), "a deletion waits too: reconcile refuses it")
        var first = facts
        first.stable = nil
        XCTAssertEqual(FetchRules.decide(first), .applyToStable, "over nothing, nothing is lost: a first keystore goes to stable")
    }

    func testExaminePlanRequeuesALocalUpdateOverATombstoneAsAnAdd() {
        let remote = PendingChange(collection: .items, id: "a", source: .remote, action: .remove, lastModified: 300, record: "{}")
        let local = PendingChange(collection: .items, id: "a", source: .local, action: .update, lastModified: 100, record: "mine")
        var plan = ExaminePlan(collection: .items)
        plan.add(.keepLocalOverTombstone, remote: remote, local: local)
        XCTAssertEqual(plan.toForget, ["a"])
        XCTAssertEqual(plan.toDrop.map(\.source), [.remote])
        XCTAssertEqual(plan.toRequeue.map(\.action), [.add])
        XCTAssertEqual(plan.toRequeue.map(\.lastModified), [0])
        XCTAssertEqual(plan.applied, 0)

        var both = ExaminePlan(collection: .items)
        both.add(.conflict, remote: remote, local: local)
        XCTAssertEqual(both.conflicts, 1)
        XCTAssertTrue(both.toStable.isEmpty && both.toDrop.isEmpty, "a conflict stays pending for reconcile")
    }

    // MARK: Apply

    func testApplyDecisions() {
        func ack(_ stamp: Int64?) -> PushStep.Acknowledgement {
            PushStep.Acknowledgement(collection: .items, id: "a", pushedRecord: "pushed", lastModified: stamp)
        }
        func local(_ action: PendingChange.Action, _ record: String = "newer") -> PendingChange {
            PendingChange(collection: .items, id: "a", source: .local, action: action, lastModified: 100, record: record)
        }
        XCTAssertEqual(ApplyRules.decide(ack(500), current: local(.update, "pushed")), ApplyDecision(stable: .save(lastModified: 500), local: .drop))
        XCTAssertEqual(ApplyRules.decide(ack(500), current: nil),
                       ApplyDecision(stable: .leave, local: .rebase(.itemRemoval(id: "a", basedOn: 500))),
                       "removed here while its write was in flight: the removal goes up again, based on it")
        var keystoreAck = ack(500)
        keystoreAck.collection = .keystores
        XCTAssertEqual(ApplyRules.decide(keystoreAck, current: nil), ApplyDecision(stable: .save(lastModified: 500), local: .keep))
        var rebased = local(.add)
        rebased.action = .update
        rebased.lastModified = 500
        XCTAssertEqual(ApplyRules.decide(ack(500), current: local(.add)), ApplyDecision(stable: .save(lastModified: 500), local: .rebase(rebased)))
        XCTAssertEqual(ApplyRules.decide(ack(0), current: local(.update)), ApplyDecision(stable: .leave, local: .keep),
                       "an accepted write without a stamp waits for the next fetch")
        XCTAssertEqual(ApplyRules.decide(ack(nil), current: local(.remove, "pushed")), ApplyDecision(stable: .delete, local: .drop))
        var readded = local(.update)
        readded.action = .add
        readded.lastModified = 0
        XCTAssertEqual(ApplyRules.decide(ack(nil), current: local(.update)), ApplyDecision(stable: .delete, local: .rebase(readded)),
                       "an edit made while its removal was pushed goes up as a new record")
        XCTAssertEqual(ApplyRules.decide(ack(nil), current: local(.remove)), ApplyDecision(stable: .delete, local: .keep))

        // Overtaken by another sync of the vault, which stored a newer version meanwhile.
        XCTAssertEqual(ApplyRules.decide(ack(500), current: nil, stableNow: 700), ApplyDecision(stable: .leave, local: .keep),
                       "a newer stable stays")
        XCTAssertEqual(ApplyRules.decide(ack(500), current: local(.update, "pushed"), stableNow: 700),
                       ApplyDecision(stable: .leave, local: .drop), "what was pushed is on the server: not pending any more")
        XCTAssertEqual(ApplyRules.decide(ack(500), current: local(.update), stableNow: 700), ApplyDecision(stable: .leave, local: .keep),
                       "a newer edit keeps the base the other sync gave it")
        XCTAssertEqual(ApplyRules.decide(ack(500), current: nil, stableNow: 500), ApplyDecision(stable: .save(lastModified: 500), local: .keep),
                       "the other sync acknowledged the same version")
        var removal = ack(nil)
        removal.base = 100
        XCTAssertEqual(ApplyRules.decide(removal, current: nil, stableNow: 900), ApplyDecision(stable: .leave, local: .keep),
                       "re-created since the removal: the newer version stays")
        XCTAssertEqual(ApplyRules.decide(removal, current: nil, stableNow: 100), ApplyDecision(stable: .delete, local: .keep))
    }

    // MARK: Re-upload after the server lost data

    func testReuploadDecisions() {
        let update = PendingChange(collection: .items, id: "a", source: .local, action: .update, lastModified: 100, record: "mine")
        var asAdd = update
        asAdd.action = .add
        asAdd.lastModified = 0
        XCTAssertEqual(ReuploadPlan.decide("a", collection: .items, local: update, stableText: nil), .queue(asAdd))
        var removal = update
        removal.action = .remove
        XCTAssertEqual(ReuploadPlan.decide("a", collection: .items, local: removal, stableText: "s"), .dropLocalRemoval)
        XCTAssertEqual(ReuploadPlan.decide("a", collection: .items, local: nil, stableText: "stable"),
                       .queue(PendingChange(collection: .items, id: "a", source: .local, action: .add, lastModified: 0, record: "stable")))
        XCTAssertEqual(ReuploadPlan.decide("a", collection: .items, local: nil, stableText: nil), .nothing)
    }
}
