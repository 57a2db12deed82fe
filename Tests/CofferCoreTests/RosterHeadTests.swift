import Foundation
import XCTest
@testable import CofferCore

/// The head a device stores after verifying a roster (architecture §17), against the chain the
/// server serves next: continued, rolled back, or forked.
final class RosterHeadTests: XCTestCase {
    func testAChainThatContinuesTheStoredHeadIsAccepted() throws {
        var chain = try RosterChainBuilder.family()
        let stored = chain.state.head
        XCTAssertEqual(stored.continuity(of: chain.entries), .continues, "the same chain")
        try chain.append(.rotate, by: RosterPeople.bob)
        XCTAssertEqual(stored.continuity(of: chain.entries), .continues, "a longer one")
    }

    func testAShorterChainIsARollback() throws {
        var chain = try RosterChainBuilder.family()
        let served = chain.entries
        try chain.append(.remove(personID: RosterPeople.carol.id), by: RosterPeople.alice)
        try chain.append(.rotate, by: RosterPeople.bob)
        let stored = chain.state.head
        let continuity = stored.continuity(of: served)
        XCTAssertEqual(continuity, .rollback(verified: 5, served: 3))
        XCTAssertEqual(continuity.description,
                       "The server's roster has 3 entries but this device has verified 5: it was rolled back, so nothing was changed.")
    }

    func testAnotherEntryAtTheStoredPositionIsAFork() throws {
        let family = try RosterChainBuilder.family()
        var seen = family, served = family
        try seen.append(.remove(personID: RosterPeople.carol.id), by: RosterPeople.alice)
        try served.append(.rotate, by: RosterPeople.alice)
        XCTAssertEqual(seen.state.head.continuity(of: served.entries), .fork(position: 3))
        // Diverging earlier and served longer: still a fork at the stored head.
        try served.append(.rotate, by: RosterPeople.bob)
        try served.append(.rotate, by: RosterPeople.carol)
        let continuity = seen.state.head.continuity(of: served.entries)
        XCTAssertEqual(continuity, .fork(position: 3))
        XCTAssertEqual(continuity.description, "The server's roster entry 3 differs from the one this device verified: "
            + "the roster was forked or rewritten, so nothing was changed.")
        // The stored head also tells a chain of another vault, which shares no entry, from ours.
        let other = try RosterChainBuilder.family()
        XCTAssertEqual(RosterHead(position: 0, hash: family.entries[0].hash).continuity(of: other.entries), .fork(position: 0))
    }
}
