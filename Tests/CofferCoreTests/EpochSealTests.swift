import Crypto
import Foundation
import XCTest
@testable import CofferCore

/// An epoch's key sealed to one member (architecture §17, record `seals/EPOCH-PERSONID`): it opens
/// only with that member's keys, for that epoch of that vault, byte for byte as sealed, and gives
/// the key the roster committed to.
final class EpochSealTests: XCTestCase {
    private let bob = RosterPeople.bob, carol = RosterPeople.carol
    private let vault = SharedVaultID.random()
    private let epochKey = SecureBuffer.random(count: EpochCommitment.keyLength)

    /// `epochKey` sealed to Bob as epoch 3's key of `vault`.
    private func sealedToBob() throws -> Data {
        try EpochSeal.seal(epochKey, epoch: 3, to: try RosterPeople.person(bob), in: vault)
    }

    private func assertUnreadable(_ sealed: Data, epoch: UInt64 = 3, in vaultID: SharedVaultID? = nil, with keys: PersonKeys? = nil,
                                  _ message: String, line: UInt = #line) {
        XCTAssertThrowsError(try EpochSeal.open(sealed, epoch: epoch, in: vaultID ?? vault, with: keys ?? bob), message, line: line) {
            XCTAssertEqual($0 as? EpochSeal.Problem, .unreadable, message, line: line)
        }
    }

    func testASealOpensWithItsRecipientsKeysToTheSameKey() throws {
        let sealed = try sealedToBob()
        XCTAssertEqual(sealed.count, 32 + 12 + 32 + 16, "the ephemeral key, the nonce, the key and the tag")
        XCTAssertNil(sealed.range(of: Data(epochKey.bytes)), "the key is not in the clear")
        XCTAssertEqual(try EpochSeal.open(sealed, epoch: 3, in: vault, with: bob).bytes, epochKey.bytes)

        // Another device of Bob's holds the same two private keys (his key ring), and opens it too.
        let (signing, sealing) = bob.privateKeys
        let bobsLaptop = try PersonKeys(signingKey: signing, sealingKey: sealing)
        XCTAssertEqual(try EpochSeal.open(sealed, epoch: 3, in: vault, with: bobsLaptop).bytes, epochKey.bytes)
        // A slice of a larger buffer (a record's bytes as read) opens the same.
        let slice = (Data([0xff]) + sealed).dropFirst()
        XCTAssertNotEqual(slice.startIndex, 0)
        XCTAssertEqual(try EpochSeal.open(slice, epoch: 3, in: vault, with: bob).bytes, epochKey.bytes)
        XCTAssertEqual(EpochSeal.id(epoch: 3, personID: bob.id), "3-\(bob.id)")
    }

    func testASealDoesNotOpenForAnotherPersonEpochOrVault() throws {
        let sealed = try sealedToBob()
        assertUnreadable(sealed, with: carol, "another member's keys")
        assertUnreadable(sealed, with: PersonKeys(), "a stranger's keys")
        assertUnreadable(sealed, epoch: 2, "the epoch before")
        assertUnreadable(sealed, epoch: 4, "the epoch after")
        assertUnreadable(sealed, epoch: 3 + (1 << 32), "an epoch equal in its low 32 bits")
        assertUnreadable(sealed, in: SharedVaultID.random(), "another vault")
    }

    func testEveryFlippedByteIsRefused() throws {
        let sealed = try sealedToBob()
        for position in sealed.indices {
            // 0x80 of the ephemeral key's last byte is ignored by X25519 itself: only the HKDF
            // salt, which holds the key as sent, refuses that one.
            for mask: UInt8 in [0x01, 0x80, 0xff] {
                var flipped = sealed
                flipped[position] ^= mask
                assertUnreadable(flipped, "byte \(position) ^ \(mask)")
            }
        }
    }

    func testATruncatedOrExtendedSealIsRefused() throws {
        let sealed = try sealedToBob()
        let variants: [(String, Data)] = [
            ("empty", Data()),
            ("the ephemeral key only", sealed.prefix(32)),
            ("one byte short", sealed.dropLast()),
            ("without its first byte", sealed.dropFirst()),
            ("one byte more", sealed + Data([0])),
            ("twice", sealed + sealed),
        ]
        for (name, data) in variants { assertUnreadable(data, name) }
    }

    func testTwoSealsOfOneKeyDiffer() throws {
        let first = try sealedToBob(), second = try sealedToBob()
        XCTAssertNotEqual(first.prefix(32), second.prefix(32), "a fresh ephemeral key for each")
        XCTAssertNotEqual(first.dropFirst(32), second.dropFirst(32))
        XCTAssertEqual(try EpochSeal.open(second, epoch: 3, in: vault, with: bob).bytes, epochKey.bytes)
    }

    /// The key a member opens is the one the entry that began the epoch committed to; a key
    /// anyone else sealed to them (the server knows their public key) opens but does not match.
    func testTheOpenedKeyMatchesTheRostersCommitment() throws {
        var chain = try RosterChainBuilder.family()
        try chain.append(.remove(personID: carol.id), by: RosterPeople.alice)
        let epoch = chain.state.epoch
        XCTAssertEqual(epoch, 2)
        let commitment = try XCTUnwrap(chain.entries.last).epochCommitment
        let bobsPerson = try RosterPeople.person(bob)

        let genuine = try EpochSeal.seal(try XCTUnwrap(chain.epochKeys[epoch]), epoch: epoch, to: bobsPerson, in: chain.vault)
        let opened = try EpochSeal.open(genuine, epoch: epoch, in: chain.vault, with: bob)
        XCTAssertTrue(EpochCommitment.matches(commitment, epoch: epoch, key: opened))
        XCTAssertFalse(EpochCommitment.matches(commitment, epoch: epoch - 1, key: opened), "the epoch is bound in")
        XCTAssertFalse(EpochCommitment.matches(try XCTUnwrap(chain.entries.first).epochCommitment, epoch: 1, key: opened),
                       "not epoch 1's key")

        let forged = try EpochSeal.seal(.random(count: 32), epoch: epoch, to: bobsPerson, in: chain.vault)
        let forgedKey = try EpochSeal.open(forged, epoch: epoch, in: chain.vault, with: bob)
        XCTAssertFalse(EpochCommitment.matches(commitment, epoch: epoch, key: forgedKey))
        let short = SecureBuffer(copying: opened.bytes.dropLast())
        XCTAssertFalse(EpochCommitment.matches(commitment, epoch: epoch, key: short), "a key of 31 bytes")
    }
}
