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
        let kdf = KDFParameters(memory: KDFParameters.minimumMemory, iterations: 3, salt: "c2FsdA==")
        let untagged = WrappingClaim(isTagged: false, isAuthentic: false, revision: 0, kdf: kdf)
        for remoteIsOlder in [false, true] {
            for localChangedWrapping in [false, true] {
                for remoteOpens in [false, true] {
                    XCTAssertEqual(KeystoreReconcileRules.decide(remoteIsDeleted: true, remoteOpens: remoteOpens, remoteIsOlder: remoteIsOlder,
                                                                 localChangedWrapping: localChangedWrapping, local: untagged, remote: untagged),
                                   .refuse, "a deleted server keystore: refused, ours goes up again")
                }
                XCTAssertEqual(KeystoreReconcileRules.decide(remoteIsDeleted: false, remoteOpens: false, remoteIsOlder: remoteIsOlder,
                                                             localChangedWrapping: localChangedWrapping, local: untagged, remote: untagged),
                               .refuse, "a keystore the vault key does not open is not ours")
                // Both untagged (every device older than tags): the rule those versions had.
                let expected: KeystoreReconcileDecision.Side = remoteIsOlder || localChangedWrapping ? .local : .remote
                XCTAssertEqual(KeystoreReconcileRules.decide(remoteIsDeleted: false, remoteOpens: true, remoteIsOlder: remoteIsOlder,
                                                             localChangedWrapping: localChangedWrapping, local: untagged, remote: untagged),
                               .merge(wrappingOf: expected),
                               "older \(remoteIsOlder), passphrase changed here \(localChangedWrapping)")
            }
        }
    }

    /// Which passphrase wrapping is kept once tags exist: the server's only when provably newer.
    func testWrappingSideTable() {
        let strong = KDFParameters(memory: 256 * 1_048_576, iterations: 6, salt: "c2FsdA==")
        let weak = KDFParameters(memory: 64 * 1_048_576, iterations: 3, salt: "c2FsdA==")
        func claim(_ revision: Int64, _ kdf: KDFParameters = strong, tagged: Bool = true, authentic: Bool = true) -> WrappingClaim {
            WrappingClaim(isTagged: tagged, isAuthentic: authentic, revision: authentic ? revision : 0, kdf: kdf)
        }
        func side(_ local: WrappingClaim, _ remote: WrappingClaim, older: Bool = false, changed: Bool = false) -> KeystoreReconcileDecision.Side {
            KeystoreReconcileRules.wrappingSide(local: local, remote: remote, remoteIsOlder: older, localChangedWrapping: changed)
        }
        XCTAssertEqual(side(claim(10), claim(20)), .remote, "a newer authentic wrapping (a passphrase changed elsewhere)")
        XCTAssertEqual(side(claim(10), claim(20), changed: true), .remote, "both changed: the later change wins")
        XCTAssertEqual(side(claim(20), claim(10)), .local, "an older wrapping, served again (finding 4)")
        XCTAssertEqual(side(claim(20), claim(20)), .local)
        XCTAssertEqual(side(claim(10), claim(20, weak)), .remote,
                       "authentic: made by a holder of the vault key (passwd never lowers the parameters); every device orders alike")
        XCTAssertEqual(side(claim(10, weak), claim(20, strong)), .remote)
        let legacy = claim(0, tagged: false, authentic: false)
        XCTAssertEqual(side(legacy, claim(0, weak, tagged: false, authentic: false)), .local,
                       "untagged: weaker Argon2id parameters are never taken")
        XCTAssertEqual(side(claim(10), claim(99, authentic: false)), .local, "a forged tag")
        XCTAssertEqual(side(claim(0, tagged: false, authentic: false), claim(99, authentic: false)), .local,
                       "a forged tag over an untagged wrapping")
        XCTAssertEqual(side(claim(10), claim(0, tagged: false, authentic: false)), .local,
                       "a tag stripped, or an older version's wrapping: never over a tagged one")
        XCTAssertEqual(side(claim(0, tagged: false, authentic: false), claim(1)), .remote, "an untagged wrapping tagged elsewhere")
    }
}
