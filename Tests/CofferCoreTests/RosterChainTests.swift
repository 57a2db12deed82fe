import Crypto
import Foundation
import XCTest
@testable import CofferCore

/// The roster chain's rules (architecture §17), one table row each: every valid shape verifies
/// to the state it should, and every refused one names the position and the rule it breaks. A
/// refused row asserts the exact reason, so it fails if its rule is missing (another rule
/// would refuse it, or none would).
final class RosterChainTests: XCTestCase {
    private let alice = RosterPeople.alice, bob = RosterPeople.bob, carol = RosterPeople.carol
    private let dave = RosterPeople.dave, mallory = RosterPeople.mallory

    // MARK: - Valid chains

    private struct Expected {
        var members: Set<String>
        var epoch: UInt64
        var epochStart: Int
        var needsRotation = false
        var recoveryKey: Data?
    }

    func testValidChainsVerifyToTheirState() throws {
        let kit = Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation
        let rows: [(name: String, build: () throws -> RosterChainBuilder, expected: Expected)] = [
            ("created", { try RosterChainBuilder(creator: self.alice) },
             Expected(members: [alice.id], epoch: 1, epochStart: 0)),
            ("two adds keep epoch 1", { try .family() },
             Expected(members: [alice.id, bob.id, carol.id], epoch: 1, epochStart: 0)),
            ("a removal begins epoch 2", {
                var chain = try RosterChainBuilder.family()
                try chain.append(.remove(personID: self.carol.id), by: self.alice)
                return chain
            }, Expected(members: [alice.id, bob.id], epoch: 2, epochStart: 3)),
            ("leaving is removing oneself", {
                var chain = try RosterChainBuilder.family()
                try chain.append(.remove(personID: self.carol.id), by: self.carol)
                return chain
            }, Expected(members: [alice.id, bob.id], epoch: 2, epochStart: 3)),
            ("a recovery key begins an epoch", {
                var chain = try RosterChainBuilder.family()
                try chain.append(.recovery(sealingKey: kit), by: self.bob)
                return chain
            }, Expected(members: [alice.id, bob.id, carol.id], epoch: 2, epochStart: 3, recoveryKey: kit)),
            ("a rotation begins an epoch", {
                var chain = try RosterChainBuilder.family()
                try chain.append(.rotate, by: self.carol)
                return chain
            }, Expected(members: [alice.id, bob.id, carol.id], epoch: 2, epochStart: 3)),
            ("a removed person is added again", {
                var chain = try RosterChainBuilder.family()
                try chain.append(.remove(personID: self.carol.id), by: self.alice)
                try chain.append(.add(try RosterPeople.person(self.carol)), by: self.bob)
                return chain
            }, Expected(members: [alice.id, bob.id, carol.id], epoch: 2, epochStart: 3)),
            ("the last member leaves: valid and final", {
                var chain = try RosterChainBuilder(creator: self.alice)
                try chain.append(.remove(personID: self.alice.id), by: self.alice)
                return chain
            }, Expected(members: [], epoch: 2, epochStart: 1)),
        ]
        for row in rows {
            let chain = try row.build()
            let state = try XCTUnwrap(try? chain.verify(appending: []).get(), row.name)
            XCTAssertEqual(Set(state.members.keys), row.expected.members, row.name)
            XCTAssertEqual(state.epoch, row.expected.epoch, row.name)
            XCTAssertEqual(state.epochStart, row.expected.epochStart, row.name)
            XCTAssertEqual(state.needsRotation, row.expected.needsRotation, row.name)
            XCTAssertEqual(state.recoveryKey, row.expected.recoveryKey, row.name)
            XCTAssertEqual(state.isFinal, row.expected.members.isEmpty, row.name)
            XCTAssertEqual(state.head, RosterHead(position: chain.entries.count - 1, hash: try XCTUnwrap(chain.entries.last).hash),
                           row.name)
            // The commitment is to the key the member who began the epoch made, and nothing else.
            let key = try XCTUnwrap(chain.epochKeys[state.epoch], row.name)
            XCTAssertEqual(state.epochCommitment, EpochCommitment.commitment(epoch: state.epoch, key: key), row.name)
            XCTAssertEqual(chain.entries[state.epochStart].epochCommitment, state.epochCommitment, row.name)
        }
    }

    func testMembersRecordWhoAddedThemAndWhere() throws {
        var chain = try RosterChainBuilder.family()
        XCTAssertEqual(chain.state.members[alice.id]?.addedBy, alice.id)
        XCTAssertEqual(chain.state.members[alice.id]?.addedAt, 0)
        XCTAssertEqual(chain.state.members[bob.id]?.addedBy, alice.id)
        XCTAssertEqual(chain.state.members[carol.id]?.addedAt, 2)
        XCTAssertEqual(chain.state.members[carol.id]?.person, try RosterPeople.person(carol))
        // Re-added: a new membership, recorded as such.
        try chain.append(.remove(personID: carol.id), by: carol)
        XCTAssertNil(chain.state.members[carol.id])
        try chain.append(.add(try RosterPeople.person(carol)), by: alice)
        XCTAssertEqual(chain.state.members[carol.id]?.addedBy, alice.id)
        XCTAssertEqual(chain.state.members[carol.id]?.addedAt, 4)
    }

    func testARecoveryKeyReplacesTheEarlierOneAndMembershipChangesKeepIt() throws {
        let first = Data(repeating: 1, count: 32), second = Data(repeating: 2, count: 32)
        var chain = try RosterChainBuilder.family()
        try chain.append(.recovery(sealingKey: first), by: alice)
        try chain.append(.remove(personID: carol.id), by: bob)
        XCTAssertEqual(chain.state.recoveryKey, first)
        try chain.append(.recovery(sealingKey: second), by: bob)
        XCTAssertEqual(chain.state.recoveryKey, second)
        XCTAssertEqual(chain.state.epoch, 4)
    }

    // MARK: - Refused chains

    /// Entry 0 made by hand, each field as given.
    private func first(_ change: RosterChange, by keys: PersonKeys, vault: SharedVaultID, sequence: UInt64 = 0,
                       previous: Data = Data(count: 32), epoch: UInt64 = 1) throws -> RosterEntry {
        try RosterEntry(vaultID: vault, sequence: sequence, previous: previous, change: change, epoch: epoch,
                        epochCommitment: EpochCommitment.commitment(epoch: epoch, key: .random(count: 32)), signedBy: keys)
    }

    func testTheFirstEntryMustBeTheSelfSignedCreationInEpoch1() throws {
        let vault = SharedVaultID.random(), otherVault = SharedVaultID.random(), aliceAsPerson = try RosterPeople.person(alice)
        let genuine = try first(.create(aliceAsPerson), by: alice, vault: vault)
        XCTAssertNoThrow(try RosterChain.verify(entries: [genuine], vaultID: vault).get())
        let rows: [(name: String, entry: RosterEntry, reason: RosterProblem.Reason)] = [
            ("another vault's creation", try first(.create(aliceAsPerson), by: alice, vault: otherVault), .otherVault(otherVault)),
            ("sequence 1", try first(.create(aliceAsPerson), by: alice, vault: vault, sequence: 1), .wrongSequence(1)),
            ("an entry before it", try first(.create(aliceAsPerson), by: alice, vault: vault, previous: Data(repeating: 7, count: 32)),
             .wrongPrevious(expected: nil)),
            ("an add", try first(.add(aliceAsPerson), by: alice, vault: vault), .firstIsNotCreate),
            ("a rotation", try first(.rotate, by: alice, vault: vault), .firstIsNotCreate),
            ("Bob created, signed by Alice", try first(.create(try RosterPeople.person(bob)), by: alice, vault: vault),
             .createNotSelfSigned),
            ("a forged signature", try genuine.signature(by: mallory), .badSignature),
            ("epoch 2", try first(.create(aliceAsPerson), by: alice, vault: vault, epoch: 2), .wrongEpoch(expected: 1, found: 2)),
            ("epoch 0", try first(.create(aliceAsPerson), by: alice, vault: vault, epoch: 0), .wrongEpoch(expected: 1, found: 0)),
        ]
        for row in rows {
            XCTAssertEqual(rosterProblem(RosterChain.verify(entries: [row.entry], vaultID: vault)),
                           RosterProblem(position: 0, reason: row.reason), row.name)
        }
    }

    func testEveryLaterEntryKeepsTheRules() throws {
        let family = try RosterChainBuilder.family()
        let otherVault = SharedVaultID.random()
        let davePerson = try RosterPeople.person(dave), malloryPerson = try RosterPeople.person(mallory)
        var withoutCarol = family
        try withoutCarol.append(.remove(personID: carol.id), by: alice)
        var tampered = try family.signed(.rotate, by: alice)
        tampered = RosterEntry(vaultID: tampered.vaultID, sequence: tampered.sequence, previous: tampered.previous,
                               author: tampered.author, change: tampered.change, epoch: tampered.epoch,
                               epochCommitment: Data(repeating: 9, count: 32), signature: tampered.signature)
        let rows: [(name: String, chain: RosterChainBuilder, tail: [RosterEntry], problem: RosterProblem)] = [
            ("moved to another vault", family, [try family.signed(.rotate, by: alice, vault: otherVault)],
             RosterProblem(position: 3, reason: .otherVault(otherVault))),
            ("a gap in the sequence", family, [try family.signed(.rotate, by: alice, sequence: 4)],
             RosterProblem(position: 3, reason: .wrongSequence(4))),
            ("a duplicate sequence number", family,
             [try family.signed(.rotate, by: alice, sequence: 2, previous: family.entries[1].hash)],
             RosterProblem(position: 3, reason: .wrongSequence(2))),
            ("an entry served twice", family, [family.entries[2]], RosterProblem(position: 3, reason: .wrongSequence(2))),
            ("signed after another entry", family, [try family.signed(.rotate, by: alice, previous: family.entries[1].hash)],
             RosterProblem(position: 3, reason: .wrongPrevious(expected: 2))),
            ("a forged signature", family, [try family.signed(.rotate, by: alice).signature(by: mallory)],
             RosterProblem(position: 3, reason: .badSignature)),
            ("changed after signing", family, [tampered], RosterProblem(position: 3, reason: .badSignature)),
            ("signed by a removed member", withoutCarol, [try withoutCarol.signed(.rotate, by: carol)],
             RosterProblem(position: 4, reason: .authorNotMember)),
            ("an add signed by a non-member", family, [try family.signed(.add(davePerson), by: mallory)],
             RosterProblem(position: 3, reason: .authorNotMember)),
            ("the server adds a member, signing with its own key", family, [try family.signed(.add(malloryPerson), by: mallory)],
             RosterProblem(position: 3, reason: .authorNotMember)),
            ("the server adds a member in a member's name", family,
             [try family.signed(.add(malloryPerson), by: alice).signature(by: mallory)],
             RosterProblem(position: 3, reason: .badSignature)),
            ("the server starts its own vault in the chain", family, [try family.signed(.create(malloryPerson), by: mallory)],
             RosterProblem(position: 3, reason: .authorNotMember)),
            ("a member creates the vault again", family, [try family.signed(.create(davePerson), by: alice)],
             RosterProblem(position: 3, reason: .createAgain)),
            ("an add of a member", family, [try family.signed(.add(try RosterPeople.person(bob)), by: alice)],
             RosterProblem(position: 3, reason: .alreadyMember(bob.id))),
            ("a removal of a non-member", family, [try family.signed(.remove(personID: davePerson.id), by: alice)],
             RosterProblem(position: 3, reason: .notMember(davePerson.id))),
            ("a removal of someone already removed", withoutCarol, [try withoutCarol.signed(.remove(personID: carol.id), by: bob)],
             RosterProblem(position: 4, reason: .notMember(carol.id))),
            ("a removal that keeps the epoch", family, [try family.signed(.remove(personID: carol.id), by: alice, epoch: 1)],
             RosterProblem(position: 3, reason: .wrongEpoch(expected: 2, found: 1))),
            ("a removal that skips an epoch", family, [try family.signed(.remove(personID: carol.id), by: alice, epoch: 3)],
             RosterProblem(position: 3, reason: .wrongEpoch(expected: 2, found: 3))),
            ("a recovery key that keeps the epoch", family,
             [try family.signed(.recovery(sealingKey: Data(repeating: 1, count: 32)), by: alice, epoch: 1)],
             RosterProblem(position: 3, reason: .wrongEpoch(expected: 2, found: 1))),
            ("a recovery key of 31 bytes", family, [try family.signed(.recovery(sealingKey: Data(repeating: 1, count: 31)), by: alice)],
             RosterProblem(position: 3, reason: .invalidRecoveryKey)),
            ("a rotation that keeps the epoch", family, [try family.signed(.rotate, by: alice, epoch: 1)],
             RosterProblem(position: 3, reason: .wrongEpoch(expected: 2, found: 1))),
            ("an add that changes the epoch number", family, [try family.signed(.add(davePerson), by: alice, epoch: 2)],
             RosterProblem(position: 3, reason: .wrongEpoch(expected: 1, found: 2))),
            ("an add that commits to another key", family,
             [try family.signed(.add(davePerson), by: alice, commitment: Data(repeating: 3, count: 32))],
             RosterProblem(position: 3, reason: .commitmentChanged)),
        ]
        // Rows about who signs what: the signing side refuses the same change before it is written.
        let changeRules: [RosterProblem.Reason] = [.authorNotMember, .createAgain, .alreadyMember(bob.id),
                                                   .notMember(davePerson.id), .notMember(carol.id), .invalidRecoveryKey]
        for row in rows {
            XCTAssertEqual(rosterProblem(row.chain.verify(appending: row.tail)), row.problem, row.name)
            guard changeRules.contains(row.problem.reason) else { continue }
            let key = row.tail[0].change.beginsEpoch ? SecureBuffer.random(count: 32) : row.chain.currentEpochKey
            XCTAssertThrowsError(try RosterChain.entry(appending: row.tail[0].change, to: row.chain.state,
                                                       by: keys(of: row.tail[0].author), epochKey: key), row.name) {
                XCTAssertEqual($0 as? RosterProblem, row.problem, row.name)
            }
        }
        XCTAssertNoThrow(try family.verify(appending: [try family.signed(.add(davePerson), by: alice)]).get(), "the rows' base is valid")
    }

    private func keys(of id: String) -> PersonKeys {
        [alice, bob, carol, dave].first { $0.id == id } ?? mallory
    }

    func testNothingFollowsTheRemovalOfTheLastMember() throws {
        var chain = try RosterChainBuilder(creator: alice)
        try chain.append(.remove(personID: alice.id), by: alice)
        XCTAssertTrue(chain.state.isFinal)
        for entry in [try chain.signed(.rotate, by: alice), try chain.signed(.add(try RosterPeople.person(bob)), by: alice)] {
            XCTAssertEqual(rosterProblem(chain.verify(appending: [entry])), RosterProblem(position: 2, reason: .afterLastMember))
        }
        XCTAssertThrowsError(try RosterChain.entry(appending: .rotate, to: chain.state, by: alice, epochKey: .random(count: 32))) {
            XCTAssertEqual($0 as? RosterProblem, RosterProblem(position: 2, reason: .afterLastMember))
        }
    }

    func testAnEmptyChainIsRefused() {
        XCTAssertEqual(rosterProblem(RosterChain.verify(entries: [], vaultID: .random())),
                       RosterProblem(position: 0, reason: .noEntries))
    }

    // MARK: - Limits

    /// A state as verifying would leave it, made by hand to stand at a limit without signing
    /// thousands of entries.
    private func state(from chain: RosterChainBuilder, headPosition: Int? = nil,
                       extraMembers: Int = 0) throws -> RosterState {
        var state = chain.state
        state.head = RosterHead(position: headPosition ?? state.head.position, hash: state.head.hash)
        for index in 0..<extraMembers {
            var key = Data(repeating: 0, count: 32)
            key[0] = UInt8(index & 0xFF)
            key[1] = UInt8(index >> 8)
            let person = try Person(name: "member \(index)", signingKey: key, sealingKey: key, account: "member\(index)")
            state.members[person.id] = .init(person: person, addedBy: alice.id, addedAt: 1)
        }
        return state
    }

    func testAChainHoldsAtMost10000Entries() throws {
        let chain = try RosterChainBuilder(creator: alice)
        let full = try state(from: chain, headPosition: RosterChain.entryLimit - 1)
        XCTAssertThrowsError(try RosterChain.entry(appending: .rotate, to: full, by: alice, epochKey: .random(count: 32))) {
            XCTAssertEqual($0 as? RosterProblem, RosterProblem(position: RosterChain.entryLimit, reason: .tooManyEntries))
        }
        let almost = try state(from: chain, headPosition: RosterChain.entryLimit - 2)
        XCTAssertNoThrow(try RosterChain.entry(appending: .rotate, to: almost, by: alice, epochKey: .random(count: 32)))
        // A served chain that long is refused before any signature is checked.
        let served = Array(repeating: chain.entries[0], count: RosterChain.entryLimit + 1)
        XCTAssertEqual(rosterProblem(RosterChain.verify(entries: served, vaultID: chain.vault)),
                       RosterProblem(position: RosterChain.entryLimit, reason: .tooManyEntries))
    }

    func testAVaultHoldsAtMost1000Members() throws {
        let chain = try RosterChainBuilder(creator: alice)
        let davePerson = try RosterPeople.person(dave)
        let full = try state(from: chain, extraMembers: RosterChain.memberLimit - 1)
        XCTAssertEqual(full.members.count, RosterChain.memberLimit)
        XCTAssertThrowsError(try RosterChain.entry(appending: .add(davePerson), to: full, by: alice, epochKey: chain.currentEpochKey)) {
            XCTAssertEqual($0 as? RosterProblem, RosterProblem(position: 1, reason: .tooManyMembers))
        }
        let almost = try state(from: chain, extraMembers: RosterChain.memberLimit - 2)
        XCTAssertNoThrow(try RosterChain.entry(appending: .add(davePerson), to: almost, by: alice, epochKey: chain.currentEpochKey))
    }

    // MARK: - Signing

    func testTheSigningSideBuildsTheEntryVerifyingReads() throws {
        var chain = try RosterChainBuilder.family()
        let key = SecureBuffer.random(count: 32)
        let entry = try RosterChain.entry(appending: .rotate, to: chain.state, by: carol, epochKey: key)
        XCTAssertEqual(entry.sequence, 3)
        XCTAssertEqual(entry.previous, chain.entries[2].hash)
        XCTAssertEqual(entry.author, carol.id)
        XCTAssertEqual(entry.epoch, 2)
        XCTAssertTrue(EpochCommitment.matches(entry.epochCommitment, epoch: 2, key: key))
        try chain.append(entry)
        XCTAssertEqual(chain.state.epochCommitment, entry.epochCommitment)
        // An add keeps the epoch: the key given must be the current one.
        let add = try RosterChain.entry(appending: .add(try RosterPeople.person(dave)), to: chain.state, by: alice, epochKey: key)
        XCTAssertEqual(add.epoch, 2)
        XCTAssertEqual(add.epochCommitment, entry.epochCommitment)
        XCTAssertThrowsError(try RosterChain.entry(appending: .add(try RosterPeople.person(dave)), to: chain.state, by: alice,
                                                   epochKey: .random(count: 32))) {
            XCTAssertEqual($0 as? RosterProblem, RosterProblem(position: 4, reason: .commitmentChanged))
        }
        XCTAssertThrowsError(try RosterChain.creation(of: .random(), name: "", account: "alice", by: alice,
                                                      epochKey: .random(count: 32))) {
            XCTAssertEqual($0 as? Person.Problem, .name)
        }
    }

    func testEveryProblemIsOneSentenceNamingThePosition() {
        let reasons: [RosterProblem.Reason] = [
            .tooManyEntries, .otherVault(.random()), .wrongSequence(9), .wrongPrevious(expected: 6), .wrongPrevious(expected: nil),
            .firstIsNotCreate, .createNotSelfSigned, .createAgain, .authorNotMember, .badSignature, .alreadyMember(alice.id),
            .notMember(bob.id), .tooManyMembers, .invalidRecoveryKey, .wrongEpoch(expected: 3, found: 4), .commitmentChanged,
            .afterLastMember, .racedAuthorNotRemoved(against: 6), .racedRemovesOther(against: 6),
        ]
        for reason in reasons {
            let sentence = RosterProblem(position: 7, reason: reason).description
            XCTAssertTrue(sentence.hasPrefix("Roster entry 7 "), sentence)
            XCTAssertTrue(sentence.hasSuffix("."), sentence)
            XCTAssertFalse(sentence.contains("\n"), sentence)
        }
        XCTAssertEqual(RosterProblem(position: 7, reason: .authorNotMember).description,
                       "Roster entry 7 is signed by someone who is not a member.")
        XCTAssertEqual(RosterProblem(position: 0, reason: .noEntries).description, "The roster has no entries.")
    }
}
