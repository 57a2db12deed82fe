import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// The two-layer keystore: the key ring sealed under a random vault key, the vault key wrapped
/// under the passphrase's wrapping key.
final class KeystoreSealingTests: XCTestCase {
    private struct Sealed {
        let record: KeystoreRecord
        let keys: PassphraseKeys
        let vaultKey: SecureBuffer
    }

    private func makeRing() -> KeyRing {
        let ring = KeyRing()
        for index in 0..<5 { ring.addKey(for: "item-\(index)") }
        return ring
    }

    private func seal(_ ring: KeyRing, passphrase: String = "right", kdf: KDFParameters = Fixture.fastKDF(),
                      vaultKey: SecureBuffer = .random(count: 32)) throws -> Sealed {
        let keys = try PassphraseKeys(passphrase: Fixture.passphrase(passphrase), parameters: kdf)
        let record = try KeystoreSealing.seal(ring, vaultKey: vaultKey, keys: keys, kdf: kdf, lineage: .first, lastModified: 7)
        return Sealed(record: record, keys: keys, vaultKey: vaultKey)
    }

    private func assertSameKeys(_ opened: KeyRing, _ ring: KeyRing, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Set(opened.itemIDs), Set(ring.itemIDs), file: file, line: line)
        XCTAssertTrue(opened.hashingKey.isEqual(to: ring.hashingKey), file: file, line: line)
        for id in ring.itemIDs {
            XCTAssertEqual(opened.key(for: id)?.bytes, ring.key(for: id)?.bytes, id, file: file, line: line)
        }
    }

    func testRoundTripWithThePassphrase() throws {
        let ring = makeRing()
        let sealed = try seal(ring)
        XCTAssertEqual(sealed.record.id, "default")
        XCTAssertEqual(sealed.record.lastModified, 7)
        let opened = try KeystoreSealing.open(sealed.record, passphrase: Fixture.passphrase("right"))
        assertSameKeys(opened.ring, ring)
        XCTAssertTrue(opened.vaultKey.isEqual(to: sealed.vaultKey))
        XCTAssertEqual(opened.kdf, sealed.record.kdf)
        XCTAssertTrue(opened.passphraseKeys.matches(verifier: sealed.record.verifier))
    }

    func testRecordSurvivesJSON() throws {
        let ring = makeRing()
        let sealed = try seal(ring)
        let decoded = try RecordCoding.decode(KeystoreRecord.self, from: RecordCoding.encode(sealed.record))
        XCTAssertEqual(decoded, sealed.record)
        let vaultKey = try KeystoreSealing.unwrapVaultKey(decoded, keys: sealed.keys)
        assertSameKeys(try KeystoreSealing.openRing(decoded, vaultKey: vaultKey), ring)
    }

    func testWrongPassphrase() throws {
        let sealed = try seal(makeRing())
        for wrong in ["wrong", "", "right "] {
            XCTAssertEqual(thrownError { try KeystoreSealing.open(sealed.record, passphrase: Fixture.passphrase(wrong)) }
                           as? CoreError, .wrongPassphrase, wrong)
        }
    }

    func testRightVerifierButFlippedRingBlobIsTampered() throws {
        let sealed = try seal(makeRing())
        let blob = try XCTUnwrap(Data(base64Encoded: sealed.record.encrypted))

        var changed = sealed.record
        var damaged = blob
        damaged[blob.count / 2] ^= 0x04
        changed.encrypted = damaged.base64EncodedString()
        XCTAssertTrue(isTampered(thrownError { try KeystoreSealing.open(changed, passphrase: Fixture.passphrase("right")) }))

        // Every byte position, with the vault key already at hand (no Argon2id per attempt).
        for position in blob.indices {
            var damaged = blob
            damaged[position] ^= 0x01
            changed.encrypted = damaged.base64EncodedString()
            XCTAssertTrue(isTampered(thrownError { try KeystoreSealing.openRing(changed, vaultKey: sealed.vaultKey) }),
                          "byte \(position)")
        }
        changed.encrypted = "not base64"
        XCTAssertTrue(isTampered(thrownError { try KeystoreSealing.openRing(changed, vaultKey: sealed.vaultKey) }))
    }

    func testRightVerifierButFlippedWrappedKeyIsTampered() throws {
        let sealed = try seal(makeRing())
        let wrapped = try XCTUnwrap(Data(base64Encoded: sealed.record.wrappedKey))
        var changed = sealed.record

        var damaged = wrapped
        damaged[wrapped.count - 1] ^= 0x10
        changed.wrappedKey = damaged.base64EncodedString()
        XCTAssertTrue(isTampered(thrownError { try KeystoreSealing.open(changed, passphrase: Fixture.passphrase("right")) }))

        for position in wrapped.indices {
            var damaged = wrapped
            damaged[position] ^= 0x01
            changed.wrappedKey = damaged.base64EncodedString()
            XCTAssertTrue(isTampered(thrownError { try KeystoreSealing.unwrapVaultKey(changed, keys: sealed.keys) }),
                          "byte \(position)")
        }
    }

    func testBlobsSwappedBetweenLayersAreTampered() throws {
        // The ring blob and the wrapped key carry different associated data; neither opens as the other.
        let sealed = try seal(makeRing())
        var swapped = sealed.record
        swapped.wrappedKey = sealed.record.encrypted
        XCTAssertTrue(isTampered(thrownError { try KeystoreSealing.unwrapVaultKey(swapped, keys: sealed.keys) }))
        swapped = sealed.record
        swapped.encrypted = sealed.record.wrappedKey
        XCTAssertTrue(isTampered(thrownError { try KeystoreSealing.openRing(swapped, vaultKey: sealed.vaultKey) }))
    }

    func testWrongVaultKeyDoesNotOpenTheRing() throws {
        let sealed = try seal(makeRing())
        XCTAssertTrue(isTampered(thrownError { try KeystoreSealing.openRing(sealed.record, vaultKey: .random(count: 32)) }))
    }

    func testWeakKDFParametersAreADowngrade() throws {
        let sealed = try seal(makeRing())
        var lowMemory = sealed.record
        lowMemory.kdf.memory = 32 * 1_048_576
        XCTAssertEqual(thrownError { try KeystoreSealing.open(lowMemory, passphrase: Fixture.passphrase("right")) } as? CoreError,
                       .kdfDowngrade(memoryBytes: 32 * 1_048_576, iterations: 3))
        var fewIterations = sealed.record
        fewIterations.kdf.iterations = 2
        XCTAssertEqual(thrownError { try KeystoreSealing.open(fewIterations, passphrase: Fixture.passphrase("right")) } as? CoreError,
                       .kdfDowngrade(memoryBytes: KDFParameters.minimumMemory, iterations: 2))
    }

    func testKeystoreSealedUnderWeakParametersIsRefusedEvenWithTheRightPassphrase() throws {
        // Someone who rewrites the keystore with cheap parameters is refused before any derivation.
        let weak = KDFParameters.fresh(memory: 8 * 1_048_576, iterations: 1)
        let sealed = try seal(makeRing(), kdf: weak)
        XCTAssertEqual(thrownError { try KeystoreSealing.open(sealed.record, passphrase: Fixture.passphrase("right")) } as? CoreError,
                       .kdfDowngrade(memoryBytes: 8 * 1_048_576, iterations: 1))
    }

    func testChangedSaltIsAWrongPassphrase() throws {
        let sealed = try seal(makeRing())
        var changed = sealed.record
        changed.kdf.salt = Fixture.fastKDF().salt
        XCTAssertEqual(thrownError { try KeystoreSealing.open(changed, passphrase: Fixture.passphrase("right")) } as? CoreError,
                       .wrongPassphrase)
    }

    func testKeysOfAnotherKeystoreDoNotOpenIt() throws {
        let sealed = try seal(makeRing())
        let other = try seal(makeRing(), passphrase: "other")
        XCTAssertEqual(thrownError { try KeystoreSealing.unwrapVaultKey(sealed.record, keys: other.keys) } as? CoreError,
                       .wrongPassphrase)
    }

    func testResealKeepsThePassphraseWrapping() throws {
        let ring = makeRing()
        let sealed = try seal(ring)
        ring.addKey(for: "item-new")
        let resealed = try KeystoreSealing.reseal(ring, vaultKey: sealed.vaultKey, keepingWrappingOf: sealed.record, lineage: .first,
                                                  lastModified: 9)
        XCTAssertTrue(resealed.hasSameWrapping(as: sealed.record))
        XCTAssertEqual(resealed.wrappedKey, sealed.record.wrappedKey)
        XCTAssertNotEqual(resealed.encrypted, sealed.record.encrypted)
        let opened = try KeystoreSealing.open(resealed, passphrase: Fixture.passphrase("right"))
        assertSameKeys(opened.ring, ring)
        XCTAssertTrue(opened.ring.contains("item-new"))
    }

    func testTwoPassphrasesWrappingOneVaultKeyOpenTheSameRing() throws {
        let ring = makeRing()
        let first = try seal(ring, passphrase: "old")
        let second = try seal(ring, passphrase: "new", vaultKey: first.vaultKey)
        XCTAssertFalse(second.record.hasSameWrapping(as: first.record))
        let viaNew = try KeystoreSealing.open(second.record, passphrase: Fixture.passphrase("new"))
        // The vault key unwrapped with the new passphrase opens the ring sealed under the old record.
        assertSameKeys(try KeystoreSealing.openRing(first.record, vaultKey: viaNew.vaultKey), ring)
    }

    // MARK: The wrapping tag (issue 41)

    /// A new wrapping is tagged with its lineage's revision; the tag checks out under the vault key
    /// only, and fails for any member changed or moved from another wrapping.
    func testTheWrappingTagBindsEveryMemberOfTheWrapping() throws {
        let sealed = try seal(makeRing())
        XCTAssertNotNil(sealed.record.wrappingTag)
        XCTAssertEqual(sealed.record.wrappingRevision, Int64(Lineage.of(sealed.record.encrypted)?.revision ?? 0))
        XCTAssertTrue(KeystoreWrappingTag.isAuthentic(sealed.record, vaultKey: sealed.vaultKey))
        XCTAssertFalse(KeystoreWrappingTag.isAuthentic(sealed.record, vaultKey: .random(count: 32)), "another vault key")
        let other = try seal(makeRing(), passphrase: "other", vaultKey: sealed.vaultKey)
        var changed: [KeystoreRecord] = []
        for change in [{ (r: inout KeystoreRecord) in r.wrappingRevision += 1 },
                       { $0.verifier = other.record.verifier },
                       { $0.wrappedKey = other.record.wrappedKey },
                       { $0.kdf = other.record.kdf },
                       { $0.kdf.memory *= 2 },
                       { $0.wrappingTag = other.record.wrappingTag }] {
            var record = sealed.record
            change(&record)
            changed.append(record)
        }
        for record in changed { XCTAssertFalse(KeystoreWrappingTag.isAuthentic(record, vaultKey: sealed.vaultKey)) }
    }

    /// What today's main before tags wrote (no `wrapping_tag`, no `wrapping_revision`) opens as
    /// before; sealing its ring again keeping its wrapping tags it at revision 1; and an older
    /// reader's JSON decoder (it knows neither member) still reads a tagged record.
    func testAKeystoreWrittenBeforeTagsOpensAndIsTaggedAtItsFirstWrite() throws {
        let ring = makeRing()
        let sealed = try seal(ring)
        var legacy = sealed.record
        legacy.wrappingTag = nil
        legacy.wrappingRevision = 0
        let text = try RecordCoding.encode(legacy)
        XCTAssertFalse(text.contains("wrapping_"), text)
        let read = try RecordCoding.decode(KeystoreRecord.self, from: text)
        assertSameKeys(try KeystoreSealing.open(read, passphrase: Fixture.passphrase("right")).ring, ring)
        XCTAssertEqual(KeystoreWrappingTag.claim(of: read, vaultKey: sealed.vaultKey),
                       WrappingClaim(isTagged: false, isAuthentic: false, revision: 0, kdf: read.kdf))

        let again = try KeystoreSealing.reseal(ring, vaultKey: sealed.vaultKey, keepingWrappingOf: read,
                                               lineage: .following(read.encrypted), lastModified: 0)
        XCTAssertEqual(again.wrappingRevision, 1)
        XCTAssertTrue(KeystoreWrappingTag.isAuthentic(again, vaultKey: sealed.vaultKey))
        XCTAssertTrue(again.hasSameWrapping(as: read) && again.wrappedKey == read.wrappedKey)

        struct OlderReader: Decodable {
            var id: String
            var kdf: KDFParameters
            var verifier: String
            var wrapped_key: String
            var encrypted: String
        }
        let older = try JSONDecoder().decode(OlderReader.self, from: Data(try RecordCoding.encode(again).utf8))
        XCTAssertEqual(older.verifier, again.verifier)
    }

    /// A revision without a tag, or members of the wrong type, read as no binding: a stranger's bytes
    /// never fail the record, and what is read is what is written back.
    func testMalformedWrappingMembersReadAsNoBinding() throws {
        let sealed = try seal(makeRing())
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try RecordCoding.encode(sealed.record).utf8)) as? [String: Any])
        object["wrapping_tag"] = 12
        object["wrapping_revision"] = "soon"
        let read = try JSONDecoder().decode(KeystoreRecord.self, from: try JSONSerialization.data(withJSONObject: object))
        XCTAssertNil(read.wrappingTag)
        XCTAssertEqual(read.wrappingRevision, 0)
        object["wrapping_tag"] = nil
        object["wrapping_revision"] = 99
        let untagged = try JSONDecoder().decode(KeystoreRecord.self, from: try JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(untagged.wrappingRevision, 0, "a revision no tag binds is none")
        XCTAssertEqual(try RecordCoding.decode(KeystoreRecord.self, from: try RecordCoding.encode(untagged)), untagged)
    }
}
