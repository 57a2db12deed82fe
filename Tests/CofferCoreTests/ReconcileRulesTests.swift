import XCTest
@testable import CofferCore

/// Reconcile's rules as a table, on sealed records but without a database.
final class ReconcileRulesTests: XCTestCase {
    func testDecisions() throws {
        let ring = KeyRing()
        let item = Fixture.item(id: "a")
        XCTAssertTrue(ring.addKey(for: "a"))
        let stable = try ItemSealing.seal(item, ring: ring, lineage: .first, lastModified: 100)
        let local = try ItemSealing.seal(item, ring: ring, lineage: .following(stable.encrypted))
        let remote = try ItemSealing.seal(item, ring: ring, lineage: .following(stable.encrypted), lastModified: 200)
        let onTopOfLocal = try ItemSealing.seal(item, ring: ring, lineage: .following(local.encrypted), lastModified: 300)
        let tombstone = ItemRecord.tombstone(id: "a", lastModified: 200)

        func decide(local: ItemRecord, remote: ItemRecord, hasKey: Bool = true, opens: ReconcileFacts.Remote = .readable(item),
                    mayOpen: Bool = true) -> ReconcileDecision {
            ReconcileRules.decide(ReconcileFacts(local: local, remote: remote, hasKey: hasKey)) {
                if !mayOpen { XCTFail("opened the server's version for nothing") }
                return opens
            }
        }
        XCTAssertEqual(decide(local: local, remote: remote), .merge)
        XCTAssertEqual(decide(local: local, remote: remote, opens: .unreadable), .replaceUnreadable)
        XCTAssertEqual(decide(local: local, remote: onTopOfLocal, mayOpen: false), .alreadyOurs)
        XCTAssertEqual(decide(local: local, remote: remote, hasKey: false, mayOpen: false), .wait, "the key has not arrived")
        XCTAssertEqual(decide(local: local, remote: tombstone, mayOpen: false), .wait, "a removal is examine's")
        XCTAssertEqual(decide(local: tombstone, remote: remote, mayOpen: false), .wait)

        XCTAssertTrue(ReconcileRules.isUsableBase(stable, against: remote))
        XCTAssertFalse(ReconcileRules.isUsableBase(onTopOfLocal, against: remote),
                       "a base newer than remote (a rollback) would revert what changed here since")
    }

    /// The keystore: every combination of what the server sent and whose passphrase changed.
    func testKeystoreDecisionsTable() {
        for remoteIsOlder in [false, true] {
            for localChangedWrapping in [false, true] {
                XCTAssertEqual(KeystoreReconcileRules.decide(remoteIsDeleted: true, remoteIsOlder: remoteIsOlder,
                                                             localChangedWrapping: localChangedWrapping), .dropRemote,
                               "a deleted server keystore: ours goes up again")
                let expected: KeystoreReconcileDecision.Side = remoteIsOlder || localChangedWrapping ? .local : .remote
                XCTAssertEqual(KeystoreReconcileRules.decide(remoteIsDeleted: false, remoteIsOlder: remoteIsOlder,
                                                             localChangedWrapping: localChangedWrapping),
                               .merge(wrappingOf: expected),
                               "older \(remoteIsOlder), passphrase changed here \(localChangedWrapping)")
            }
        }
    }
}
