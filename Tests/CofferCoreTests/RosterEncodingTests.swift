import Crypto
import Foundation
import XCTest
@testable import CofferCore

/// The bytes of the roster (architecture §17): the entry's canonical encoding and what it signs,
/// strict decoding, the record's JSON, and the forms of persons, vault ids and epoch commitments.
final class RosterEncodingTests: XCTestCase {
    private let alice = RosterPeople.alice, bob = RosterPeople.bob

    /// One entry of each change, from a real chain.
    private func entriesOfEveryChange() throws -> [RosterEntry] {
        var chain = try RosterChainBuilder.family()
        try chain.append(.recovery(sealingKey: Data(repeating: 5, count: 32)), by: alice)
        try chain.append(.rotate, by: bob)
        try chain.append(.remove(personID: RosterPeople.carol.id), by: bob)
        return chain.entries
    }

    func testEveryEntryDecodesFromItsEncodingToTheSameBytes() throws {
        for entry in try entriesOfEveryChange() {
            let decoded = try RosterEntry(encoded: entry.encoded)
            XCTAssertEqual(decoded, entry, "\(entry.change)")
            XCTAssertEqual(decoded.encoded, entry.encoded)
            XCTAssertEqual(decoded.hash, entry.hash)
            XCTAssertEqual(Data(RosterEntry.domain + entry.encoded.dropLast(64)), entry.signedBytes)
        }
    }

    /// The layout of `RosterEntry+Encoding.swift`, byte by byte, for a rotation and an add.
    func testTheLayoutIsTheDocumentedOne() throws {
        let chain = try RosterChainBuilder.family()
        let rotation = try chain.signed(.rotate, by: alice)
        func uint64(_ value: UInt64) -> Data { withUnsafeBytes(of: value.bigEndian) { Data($0) } }
        let vault = Data(chain.vault.bucket.utf8)
        let head = Data([1, 0, UInt8(vault.count)]) + vault + uint64(3) + chain.entries[2].hash + Data(alice.id.utf8)
        let tail = uint64(2) + rotation.epochCommitment + rotation.signature
        XCTAssertEqual(rotation.encoded, head + Data([5]) + tail)
        XCTAssertEqual(rotation.signedBytes, Data("coffer/v1/roster".utf8) + Data([0]) + head + Data([5]) + uint64(2)
            + rotation.epochCommitment)
        XCTAssertEqual(rotation.hash, Data(SHA256.hash(data: rotation.signedBytes + rotation.signature)))
        let signingKey = try Curve25519.Signing.PublicKey(rawRepresentation: alice.signingPublicKey)
        XCTAssertTrue(signingKey.isValidSignature(rotation.signature, for: rotation.signedBytes))

        let bobAsPerson = try RosterPeople.person(bob)
        let add = chain.entries[1]
        let account = Data(bobAsPerson.account.utf8)
        var person = bob.signingPublicKey + bob.sealingPublicKey
        person += Data([0, 3]) + Data("Bob".utf8)
        person += Data([0, UInt8(account.count)]) + account
        var expected = Data([1, 0, UInt8(vault.count)]) + vault
        expected += uint64(1) + chain.entries[0].hash + Data(alice.id.utf8)
        expected += Data([2]) + person
        expected += uint64(1) + add.epochCommitment + add.signature
        XCTAssertEqual(add.encoded, expected)
    }

    func testTheHashCoversTheSignature() throws {
        let entry = try RosterChainBuilder.family().entries[2]
        let other = RosterEntry(vaultID: entry.vaultID, sequence: entry.sequence, previous: entry.previous, author: entry.author,
                                change: entry.change, epoch: entry.epoch, epochCommitment: entry.epochCommitment,
                                signature: Data(repeating: 1, count: 64))
        XCTAssertEqual(other.signedBytes, entry.signedBytes)
        XCTAssertNotEqual(other.hash, entry.hash)
    }

    func testDecodingIsStrict() throws {
        let entries = try entriesOfEveryChange()
        for entry in entries {
            let bytes = entry.encoded
            for length in 0..<bytes.count {
                XCTAssertThrowsError(try RosterEntry(encoded: bytes.prefix(length))) {
                    XCTAssertEqual($0 as? RosterEntry.Malformed, .truncated, "cut to \(length) of \(bytes.count)")
                }
            }
            XCTAssertThrowsError(try RosterEntry(encoded: bytes + Data([0]))) {
                XCTAssertEqual($0 as? RosterEntry.Malformed, .trailingBytes(1))
            }
        }
        let bytes = entries[3].encoded
        // The version, and the change tag right after the author.
        let tagOffset = 1 + 2 + SharedVaultID.prefix.count + 26 + 8 + 32 + 32
        XCTAssertEqual(bytes[tagOffset], 4, "entry 3 is the recovery")
        for (offset, value, expected) in [(0, 2, RosterEntry.Malformed.unknownVersion(2)), (0, 0, .unknownVersion(0)),
                                          (tagOffset, 0, .unknownChange(0)), (tagOffset, 6, .unknownChange(6)),
                                          (tagOffset, 255, .unknownChange(255))] as [(Int, UInt8, RosterEntry.Malformed)] {
            var changed = bytes
            changed[offset] = value
            XCTAssertThrowsError(try RosterEntry(encoded: changed)) { XCTAssertEqual($0 as? RosterEntry.Malformed, expected) }
        }
        XCTAssertThrowsError(try RosterEntry(encoded: Data(repeating: 1, count: RosterEntry.encodedLimit + 1))) {
            XCTAssertEqual($0 as? RosterEntry.Malformed, .tooLarge(RosterEntry.encodedLimit + 1))
        }
        XCTAssertThrowsError(try RosterEntry(encoded: Data([1]) + Data(repeating: 0, count: RosterEntry.encodedLimit - 1))) {
            XCTAssertNotEqual($0 as? RosterEntry.Malformed, .tooLarge(RosterEntry.encodedLimit), "4 KiB is within the limit")
        }
    }

    /// Each field outside its form, spliced into a genuine add: refused, naming the field.
    func testFieldsOutsideTheirFormAreRefused() throws {
        let chain = try RosterChainBuilder.family()
        let add = chain.entries[1].encoded
        let vaultStart = 3, vaultLength = SharedVaultID.prefix.count + 26
        let authorStart = vaultStart + vaultLength + 8 + 32
        let nameStart = authorStart + 32 + 1 + 64
        func replacing(_ range: Range<Int>, with bytes: Data) -> Data {
            var changed = add
            changed.replaceSubrange(range, with: bytes)
            return changed
        }
        XCTAssertEqual(add[nameStart..<(nameStart + 5)], Data([0, 3]) + Data("Bob".utf8))
        let rows: [(name: String, bytes: Data, field: String)] = [
            ("an upper-case vault id", replacing(vaultStart..<(vaultStart + vaultLength), with: Data(chain.vault.bucket.uppercased().utf8)),
             "vault id"),
            ("a vault id of another prefix", replacing(vaultStart..<(vaultStart + 6), with: Data("shore-".utf8)), "vault id"),
            ("an upper-case author", replacing(authorStart..<(authorStart + 32), with: Data(alice.id.uppercased().utf8)), "author"),
            ("an author that is no id", replacing(authorStart..<(authorStart + 32), with: Data(repeating: 0x67, count: 32)),
             "author"),
            ("a name with NUL", replacing((nameStart + 2)..<(nameStart + 5), with: Data([0x42, 0, 0x62])), "person's name"),
            ("a name of invalid UTF-8", replacing((nameStart + 2)..<(nameStart + 5), with: Data([0x42, 0xC3, 0x28])),
             "person's name"),
            ("an empty name", replacing(nameStart..<(nameStart + 5), with: Data([0, 0])), "person's name"),
            ("an account with a space", replacing((nameStart + 7)..<(nameStart + 8), with: Data(" ".utf8)), "person's account"),
        ]
        for row in rows {
            XCTAssertThrowsError(try RosterEntry(encoded: row.bytes), row.name) {
                XCTAssertEqual($0 as? RosterEntry.Malformed, .invalidField(row.field), row.name)
            }
        }
        var removal = try chain.signed(.remove(personID: RosterPeople.carol.id), by: alice).encoded
        removal.replaceSubrange((authorStart + 33)..<(authorStart + 65), with: Data(RosterPeople.carol.id.uppercased().utf8))
        XCTAssertThrowsError(try RosterEntry(encoded: removal)) {
            XCTAssertEqual($0 as? RosterEntry.Malformed, .invalidField("removed person's id"))
        }
    }

    func testEveryDecodingProblemIsOneSentence() {
        for problem in [RosterEntry.Malformed.tooLarge(5000), .truncated, .trailingBytes(2), .unknownVersion(3),
                        .unknownChange(9), .invalidField("author")] {
            XCTAssertTrue(problem.description.hasPrefix("The roster entry"), problem.description)
            XCTAssertTrue(problem.description.hasSuffix("."), problem.description)
        }
    }

    // MARK: - Records

    func testARecordHoldsTheEntryInBase64() throws {
        let entry = try RosterChainBuilder.family().entries[2]
        let record = RosterRecord(entry: entry)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: record.json) as? [String: String])
        XCTAssertEqual(object, ["entry": entry.encoded.base64EncodedString()])
        XCTAssertEqual(try RosterRecord(json: record.json), record)
        // As the server serves it, with its own members.
        let served = #"{"id":"0000000002","last_modified":1767225600000,"entry":"\#(entry.encoded.base64EncodedString())"}"#
        XCTAssertEqual(try RosterRecord(json: Data(served.utf8)).entry, entry)
    }

    func testARecordThatHoldsNoEntryIsRefused() throws {
        let entry = try RosterChainBuilder.family().entries[1]
        let cut = entry.encoded.dropLast().base64EncodedString()
        let rows: [(json: String, problem: RosterRecord.Problem)] = [
            (#"{}"#, .notARecord),
            (#"[]"#, .notARecord),
            (#"{"entry":5}"#, .notARecord),
            (#"{"entry":"not base64!"}"#, .notARecord),
            (#"{"entry":"\#(cut)"}"#, .malformed(.truncated)),
            (#"{"entry":""}"#, .malformed(.truncated)),
        ]
        for row in rows {
            XCTAssertThrowsError(try RosterRecord(json: Data(row.json.utf8)), row.json) {
                XCTAssertEqual($0 as? RosterRecord.Problem, row.problem, row.json)
            }
        }
    }

    func testRecordIDsAreTheirPositionInTenDigits() {
        XCTAssertEqual(RosterRecord.id(position: 0), "0000000000")
        XCTAssertEqual(RosterRecord.id(position: 7), "0000000007")
        XCTAssertEqual(RosterRecord.id(position: 9_999), "0000009999")
        XCTAssertEqual(RosterRecord.position(ofID: "0000000007"), 7)
        XCTAssertEqual(RosterRecord.position(ofID: RosterRecord.id(position: 1_234)), 1_234)
        for id in ["7", "000000007", "00000000007", "000000000a", "-000000007", "+000000007", " 000000007"] {
            XCTAssertNil(RosterRecord.position(ofID: id), id)
        }
    }

    // MARK: - Persons, vault ids, epoch commitments

    func testAPersonsIDIsTheHashOfTheirSigningKey() throws {
        let person = try RosterPeople.person(alice)
        let expected = SHA256.hash(data: alice.signingPublicKey).prefix(16).map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(person.id, expected)
        XCTAssertEqual(alice.id, expected)
        XCTAssertTrue(Person.isValidID(utf8: person.id.utf8))
        XCTAssertEqual(person.signingKey, alice.signingPublicKey)
        XCTAssertEqual(person.sealingKey, alice.sealingPublicKey)
    }

    func testAPersonsNameAndAccountKeepTheirForm() throws {
        let name200 = String(repeating: "é", count: 100), account200 = String(repeating: "a", count: 200)
        XCTAssertNoThrow(try alice.person(name: name200, account: "a-b_c.d@example.org"))
        XCTAssertNoThrow(try alice.person(name: "Alice", account: account200))
        let rows: [(name: String, account: String, problem: Person.Problem)] = [
            ("", "alice", .name),
            (name200 + "a", "alice", .name),
            ("Al\u{0}ice", "alice", .name),
            ("Alice", "", .account),
            ("Alice", account200 + "a", .account),
            ("Alice", "alice smith", .account),
            ("Alice", "alicé", .account),
            ("Alice", "alice/..", .account),
        ]
        for row in rows {
            XCTAssertThrowsError(try alice.person(name: row.name, account: row.account), "\(row)") {
                XCTAssertEqual($0 as? Person.Problem, row.problem, "\(row)")
            }
        }
        XCTAssertThrowsError(try Person(name: "Alice", signingKey: Data(count: 31), sealingKey: Data(count: 32), account: "a")) {
            XCTAssertEqual($0 as? Person.Problem, .keyLength)
        }
    }

    func testPersonKeysComeBackFromTheirPrivateHalves() throws {
        let signing = Curve25519.Signing.PrivateKey(), sealing = Curve25519.KeyAgreement.PrivateKey()
        let keys = try PersonKeys(signingKey: SecureBuffer(copying: signing.rawRepresentation),
                                  sealingKey: SecureBuffer(copying: sealing.rawRepresentation))
        XCTAssertEqual(keys.signingPublicKey, signing.publicKey.rawRepresentation)
        XCTAssertEqual(keys.sealingPublicKey, sealing.publicKey.rawRepresentation)
        XCTAssertThrowsError(try PersonKeys(signingKey: SecureBuffer(count: 31), sealingKey: SecureBuffer(count: 32)))
    }

    func testAVaultIDIsShareAnd26CanonicalBase32Symbols() {
        for _ in 0..<100 {
            let id = SharedVaultID.random()
            XCTAssertEqual(id.bucket.count, 32)
            XCTAssertEqual(SharedVaultID(bucket: id.bucket), id)
        }
        let valid = "share-" + String(repeating: "a", count: 25)
        for last in ["a", "e", "i", "m", "q", "u", "y", "4"] {
            XCTAssertNotNil(SharedVaultID(bucket: valid + last), last)
        }
        // The last symbol's two low bits are padding: set, they spell the same id another way.
        for last in ["b", "c", "d", "z", "7"] {
            XCTAssertNil(SharedVaultID(bucket: valid + last), last)
        }
        for bucket in [valid, valid + "aa", "share-" + String(repeating: "A", count: 26), "shared" + String(repeating: "a", count: 26),
                       "share-" + String(repeating: "a", count: 25) + "1", "share-" + String(repeating: "a", count: 25) + "=",
                       "share_" + String(repeating: "a", count: 26), ""] {
            XCTAssertNil(SharedVaultID(bucket: bucket), bucket)
        }
    }

    func testTheEpochCommitmentMatchesOnlyItsKeyAndEpoch() {
        let key = SecureBuffer.random(count: 32)
        let commitment = EpochCommitment.commitment(epoch: 7, key: key)
        var input = Data("coffer/v1/epoch".utf8)
        input.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 7])
        key.withUnsafeBytes { input.append(contentsOf: $0) }
        XCTAssertEqual(commitment, Data(SHA256.hash(data: input)))
        XCTAssertTrue(EpochCommitment.matches(commitment, epoch: 7, key: key))
        XCTAssertFalse(EpochCommitment.matches(commitment, epoch: 7, key: .random(count: 32)), "another key")
        XCTAssertFalse(EpochCommitment.matches(commitment, epoch: 8, key: key), "another epoch")
        XCTAssertFalse(EpochCommitment.matches(commitment, epoch: 7, key: SecureBuffer(copying: key.bytes.dropLast())),
                       "the key cut short")
        var flipped = key.bytes
        flipped[31] ^= 1
        XCTAssertFalse(EpochCommitment.matches(commitment, epoch: 7, key: SecureBuffer(copying: flipped)), "one bit of the key")
    }
}
