import CofferCore
import Foundation

/// The checks the fuzz targets (`Sources/Fuzz*`) run on every input, in the library so the tests
/// replay seed corpora and past findings through exactly the same code.
///
/// Each check takes arbitrary bytes. The parser under test may refuse them with its usual error;
/// it must never crash, never throw anything else, and whatever it accepts must keep the
/// invariants named below. A broken invariant throws `FuzzViolation` (the fuzz targets turn it
/// into a trap, which libFuzzer reports as a crash).
public enum FuzzChecks {
    /// The fixed key of the envelope checks: bytes 0, 1, …, 31.
    public static let testKey = SecureBuffer(copying: (0..<UInt8(KeyRing.keyLength)).map { $0 })
    /// The "now" of import checks (2026-01-01T00:00:00Z), so runs are reproducible.
    public static let importNow = Timestamp(milliseconds: 1_767_225_600_000)

    // MARK: Records, key ring, timestamps (FuzzRecords)

    /// A fixed vault key the fuzzer's inputs know nothing of.
    static let fuzzVaultKey = SecureBuffer(copying: Array(repeating: UInt8(0x5A), count: 32))

    /// A ring holding a fresh key for `id`: what a device holding the item has.
    static func fuzzRing(for id: String) -> KeyRing {
        let ring = KeyRing(hashingKey: SecureBuffer(copying: Array(repeating: UInt8(0x3C), count: KeyRing.keyLength)))
        ring.addKey(for: id)
        return ring
    }

    /// `ItemRecord` and `KeystoreRecord` JSON, `KeyRing.parse` and `Timestamp`, all on the same bytes.
    public static func records(_ data: Data) throws {
        try recordRoundTrip(ItemRecord.self, data)
        try recordRoundTrip(KeystoreRecord.self, data)
        try keyRing(data)
        try timestamp(data)
    }

    /// A record that decodes re-encodes (canonical text) to a record that decodes equal, and
    /// whose canonical text is a fixed point.
    static func recordRoundTrip<Record: Codable & Equatable>(_ type: Record.Type, _ data: Data) throws {
        // Both ways records come in: server bytes (sync) and stored text (the vault).
        let fromBytes = try? JSONDecoder().decode(type, from: data)
        let fromText = try? RecordCoding.decode(type, from: String(decoding: data, as: UTF8.self))
        for record in [fromBytes, fromText].compactMap({ $0 }) {
            let text: String = try mustSucceed { try RecordCoding.encode(record) } else: {
                "\(type): a decoded record does not encode: \($0)"
            }
            let again: Record = try mustSucceed { try RecordCoding.decode(type, from: text) } else: { _ in
                "\(type): canonical text does not decode: \(text)"
            }
            guard again == record else { throw FuzzViolation("\(type): round trip changed the record: \(text)") }
            guard (try? RecordCoding.encode(again)) == text else {
                throw FuzzViolation("\(type): canonical text is not a fixed point: \(text)")
            }
            if let keystore = record as? KeystoreRecord, !keystore.isDeleted {
                do {
                    try keystore.kdf.checkStrength()
                } catch let error as CoreError {
                    switch error {
                    case .tampered, .kdfDowngrade: break
                    default: throw FuzzViolation("checkStrength threw \(error)")
                    }
                }
                // The wrapping tag (issue 41): no bytes a stranger writes pass for one made under a key they lack.
                if KeystoreWrappingTag.isAuthentic(keystore, vaultKey: fuzzVaultKey) {
                    throw FuzzViolation("a wrapping tag checked out under a key the input never saw: \(text)")
                }
            }
            if let item = record as? ItemRecord {
                _ = RecordID.isValid(item.id)
                // The sealed removal (issue 41): no bytes a stranger writes pass for one sealed under a
                // key the input never saw, and none fails other than by saying no.
                if item.isSealedRemoval, (try? RemovalSealing.isAuthentic(item, ring: fuzzRing(for: item.id))) != false {
                    throw FuzzViolation("a removal checked out, or failed to say no, under a key the input never saw: \(text)")
                }
            }
        }
    }

    /// `KeyRing.parse` on the bytes, and on the bytes behind the ring's magic (so the fuzzer need
    /// not find it): a ring that parses serializes to bytes that parse to the same ring, and
    /// serializing is a fixed point.
    static func keyRing(_ data: Data) throws {
        try keyRingRoundTrip(data)
        try keyRingRoundTrip(Data("CKR1".utf8) + data)
        try keyRingRoundTrip(Data("CKR2".utf8) + data)
    }

    private static func keyRingRoundTrip(_ data: Data) throws {
        let ring: KeyRing
        do {
            ring = try data.withUnsafeBytes { try KeyRing.parse($0) }
        } catch let error as CoreError {
            guard case .tampered = error else { throw FuzzViolation("KeyRing.parse threw \(error)") }
            return
        }
        let serialized = ring.serialized()
        let again: KeyRing = try mustSucceed { try serialized.withUnsafeBytes { try KeyRing.parse($0) } } else: {
            "a parsed key ring's serialization does not parse: \($0)"
        }
        guard again.count == ring.count, Set(again.itemIDs) == Set(ring.itemIDs),
              again.hashingKey.isEqual(to: ring.hashingKey), again.generation == ring.generation,
              again.retiredCount == ring.retiredCount else {
            throw FuzzViolation("a key ring changed through serialization")
        }
        for id in ring.itemIDs {
            guard let key = ring.key(for: id), let other = again.key(for: id), key.isEqual(to: other) else {
                throw FuzzViolation("key \(id) changed through serialization")
            }
        }
        guard again.serialized().isEqual(to: serialized) else {
            throw FuzzViolation("key ring serialization is not a fixed point")
        }
    }

    /// `Timestamp(iso8601:)` on the bytes as text: what parses prints as text that parses to the
    /// same time and prints the same. The first 8 bytes as milliseconds: `iso8601` never traps,
    /// and within years 0000…9999 parses back to the same time.
    static func timestamp(_ data: Data) throws {
        let text = String(decoding: data, as: UTF8.self)
        if let parsed = Timestamp(iso8601: text) {
            let printed = parsed.iso8601
            guard let again = Timestamp(iso8601: printed) else {
                throw FuzzViolation("Timestamp: \(text) parses, but its text \(printed) does not")
            }
            guard again == parsed, again.iso8601 == printed else {
                throw FuzzViolation("Timestamp: \(text) → \(printed) → \(again.iso8601)")
            }
        }
        if data.count >= 8 {
            let bits = data.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let time = Timestamp(milliseconds: Int64(bitPattern: bits))
            let printed = time.iso8601
            let years0000to9999: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999
            if years0000to9999.contains(time.milliseconds), Timestamp(iso8601: printed) != time {
                throw FuzzViolation("Timestamp(milliseconds: \(time.milliseconds)) prints \(printed), which does not parse back")
            }
        }
    }
}
