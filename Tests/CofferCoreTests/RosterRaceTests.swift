import Foundation
import XCTest
@testable import CofferCore

/// The raced removal of architecture §17: Alice and Bob remove each other at once, both signing
/// sequence 3 after entry 2; Alice's entry takes position 3, and Bob's may follow it at position
/// 4 unchanged, so both removals take effect. Only that shape is accepted.
final class RosterRaceTests: XCTestCase {
    private let alice = RosterPeople.alice, bob = RosterPeople.bob, carol = RosterPeople.carol
    private let dave = RosterPeople.dave, mallory = RosterPeople.mallory

    /// The family chain (Alice, Bob, Carol), the chain as both racers saw it, and Alice's winning entry.
    private func race() throws -> (lost: RosterChainBuilder, won: RosterChainBuilder) {
        let lost = try RosterChainBuilder.family()
        var won = lost
        try won.append(.remove(personID: bob.id), by: alice)
        return (lost, won)
    }

    func testTheRacedRemovalRemovesTheWinnerToo() throws {
        let (lost, winning) = try race()
        var won = winning
        let raced = try RosterChain.racedRemoval(of: alice.id, against: lost.state, by: bob, epochKey: .random(count: 32))
        XCTAssertEqual(raced.sequence, 3)
        XCTAssertEqual(raced.previous, lost.entries[2].hash)
        try won.append(raced)
        let state = won.state
        XCTAssertEqual(Set(state.members.keys), [carol.id], "both removals took effect")
        XCTAssertEqual(state.head, RosterHead(position: 4, hash: raced.hash))
        // The epoch is Alice's, whose key she sealed; Bob's commitment is to a key nobody holds.
        XCTAssertEqual(state.epoch, 2)
        XCTAssertEqual(state.epochStart, 3)
        XCTAssertEqual(state.epochCommitment, won.entries[3].epochCommitment)
        XCTAssertNotEqual(state.epochCommitment, raced.epochCommitment)
        XCTAssertTrue(state.needsRotation, "Alice, now removed, knows the epoch's key")

        // An add keeps the epoch, so the rotation is still owed; the next rotation pays it.
        var added = won
        try added.append(.add(try RosterPeople.person(dave)), by: carol)
        XCTAssertTrue(added.state.needsRotation)
        try added.append(.rotate, by: dave)
        XCTAssertFalse(added.state.needsRotation)
        XCTAssertEqual(added.state.epoch, 3)
        XCTAssertEqual(added.state.epochStart, 6)
        for change in [RosterChange.remove(personID: dave.id), .recovery(sealingKey: Data(repeating: 4, count: 32))] {
            var other = won
            try other.append(.add(try RosterPeople.person(dave)), by: carol)
            try other.append(change, by: carol)
            XCTAssertFalse(other.state.needsRotation, "\(change)")
        }
    }

    func testARaceInAVaultOfTwoLeavesItFinal() throws {
        var lost = try RosterChainBuilder(creator: alice)
        try lost.append(.add(try RosterPeople.person(bob)), by: alice)
        var won = lost
        try won.append(.remove(personID: bob.id), by: alice)
        try won.append(try RosterChain.racedRemoval(of: alice.id, against: lost.state, by: bob, epochKey: .random(count: 32)))
        XCTAssertTrue(won.state.isFinal)
        XCTAssertEqual(rosterProblem(won.verify(appending: [try won.signed(.rotate, by: alice)])),
                       RosterProblem(position: 4, reason: .afterLastMember))
    }

    func testOnlyTheLosersRemovalOfTheWinnerDirectlyAfterIsAccepted() throws {
        let (lost, won) = try race()
        let davePerson = try RosterPeople.person(dave)
        /// An entry signed as if at position 3 after entry 2, as the loser's is.
        func against(_ chain: RosterChainBuilder, _ change: RosterChange, by keys: PersonKeys,
                     epoch: UInt64? = nil, previous: Data? = nil) throws -> RosterEntry {
            try chain.signed(change, by: keys, sequence: 3, previous: previous, epoch: epoch)
        }
        let racedByBob = try against(lost, .remove(personID: alice.id), by: bob)
        XCTAssertNoThrow(try won.verify(appending: [racedByBob]).get(), "the rows' base is valid")

        var addedDave = won
        try addedDave.append(.add(davePerson), by: carol)
        var rotated = won
        try rotated.append(.rotate, by: carol)
        var addedInstead = lost
        try addedInstead.append(.add(davePerson), by: alice)
        var aliceLeft = lost
        try aliceLeft.append(.remove(personID: alice.id), by: alice)
        var racedAlready = won
        try racedAlready.append(racedByBob)

        let rows: [(name: String, chain: RosterChainBuilder, tail: [RosterEntry], problem: RosterProblem)] = [
            ("not directly after: an add came between", addedDave, [racedByBob],
             RosterProblem(position: 5, reason: .wrongSequence(3))),
            ("not directly after: a rotation came between", rotated, [racedByBob],
             RosterProblem(position: 5, reason: .wrongSequence(3))),
            ("entry 3 is no removal: an add", addedInstead, [racedByBob],
             RosterProblem(position: 4, reason: .wrongSequence(3))),
            ("entry 3 is the winner leaving, not removing the loser", aliceLeft, [racedByBob],
             RosterProblem(position: 4, reason: .wrongSequence(3))),
            ("a raced removal opens no window of its own", racedAlready,
             [try racedAlready.signed(.remove(personID: carol.id), by: carol, sequence: 4, previous: won.entries[3].hash)],
             RosterProblem(position: 5, reason: .wrongSequence(4))),
            ("it removes someone other than the winner", won, [try against(lost, .remove(personID: carol.id), by: bob)],
             RosterProblem(position: 4, reason: .racedRemovesOther(against: 3))),
            ("it rotates instead of removing the winner", won, [try against(lost, .rotate, by: bob)],
             RosterProblem(position: 4, reason: .racedRemovesOther(against: 3))),
            ("it adds someone instead", won, [try against(lost, .add(davePerson), by: bob)],
             RosterProblem(position: 4, reason: .racedRemovesOther(against: 3))),
            ("not signed against entry 2", won,
             [try against(lost, .remove(personID: alice.id), by: bob, previous: lost.entries[1].hash)],
             RosterProblem(position: 4, reason: .wrongPrevious(expected: 2))),
            ("signed against entry 3, after the loser was removed", won, [try won.signed(.remove(personID: alice.id), by: bob)],
             RosterProblem(position: 4, reason: .authorNotMember)),
            ("by someone who was not a member", won, [try against(lost, .remove(personID: alice.id), by: mallory)],
             RosterProblem(position: 4, reason: .authorNotMember)),
            ("by a member entry 3 did not remove", won, [try against(lost, .remove(personID: alice.id), by: carol)],
             RosterProblem(position: 4, reason: .racedAuthorNotRemoved(against: 3))),
            ("with a forged signature", won, [try racedByBob.signature(by: mallory)],
             RosterProblem(position: 4, reason: .badSignature)),
            ("keeping the epoch of entry 2", won, [try against(lost, .remove(personID: alice.id), by: bob, epoch: 1)],
             RosterProblem(position: 4, reason: .wrongEpoch(expected: 2, found: 1))),
            ("skipping an epoch", won, [try against(lost, .remove(personID: alice.id), by: bob, epoch: 3)],
             RosterProblem(position: 4, reason: .wrongEpoch(expected: 2, found: 3))),
        ]
        for row in rows {
            XCTAssertEqual(rosterProblem(row.chain.verify(appending: row.tail)), row.problem, row.name)
        }
    }
}
