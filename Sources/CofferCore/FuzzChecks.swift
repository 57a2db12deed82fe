import Crypto
import Foundation

/// A broken invariant found by a fuzz check. (The other kind of finding is a crash.)
public struct FuzzViolation: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

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
            let text: String
            do {
                text = try RecordCoding.encode(record)
            } catch {
                throw FuzzViolation("\(type): a decoded record does not encode: \(error)")
            }
            let again: Record
            do {
                again = try RecordCoding.decode(type, from: text)
            } catch {
                throw FuzzViolation("\(type): canonical text does not decode: \(text)")
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
            }
            if let item = record as? ItemRecord { _ = RecordID.isValid(item.id) }
        }
    }

    /// `KeyRing.parse` on the bytes, and on the bytes behind the ring's magic (so the fuzzer need
    /// not find it): a ring that parses serializes to bytes that parse to the same ring, and
    /// serializing is a fixed point.
    static func keyRing(_ data: Data) throws {
        try keyRingRoundTrip(data)
        try keyRingRoundTrip(Data("CKR1".utf8) + data)
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
        let again: KeyRing
        do {
            again = try serialized.withUnsafeBytes { try KeyRing.parse($0) }
        } catch {
            throw FuzzViolation("a parsed key ring's serialization does not parse: \(error)")
        }
        guard again.count == ring.count, Set(again.itemIDs) == Set(ring.itemIDs),
              again.hashingKey.isEqual(to: ring.hashingKey) else {
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

    // MARK: Envelope (FuzzEnvelope)

    /// The bytes as a sealed envelope: opening with the test key fails with `tampered`, or the
    /// bytes are exactly what sealing the plaintext with that key and their nonce gives. The
    /// bytes as plaintext: `open(seal(x)) == x`, also from a `Data` slice; flipping a bit of the
    /// sealed bytes, or opening under another id, collection or key, fails with `tampered`.
    public static func envelope(_ data: Data) throws {
        try openArbitrary(data)
        try sealRoundTrip(data)
    }

    private static let otherKey = SecureBuffer(copying: (0..<UInt8(KeyRing.keyLength)).map { $0 ^ 0x01 })
    private static let collection = CollectionName.items.rawValue
    private static let id = "fuzz"

    private static func expectTampered(_ what: String, _ body: () throws -> Data) throws {
        do {
            _ = try body()
        } catch let error as CoreError {
            guard case .tampered = error else { throw FuzzViolation("\(what): threw \(error), not tampered") }
            return
        } catch {
            throw FuzzViolation("\(what): threw \(error), not CoreError.tampered")
        }
        throw FuzzViolation("\(what): opened")
    }

    private static func openArbitrary(_ data: Data) throws {
        let plaintext: Data
        do {
            plaintext = try Envelope.open(data, key: testKey, collection: collection, id: id)
        } catch let error as CoreError {
            guard case .tampered = error else { throw FuzzViolation("Envelope.open threw \(error), not tampered") }
            return
        } catch {
            throw FuzzViolation("Envelope.open threw \(error), not CoreError.tampered")
        }
        let bytes = [UInt8](data)
        guard bytes.count >= Envelope.overhead, bytes[0] == Envelope.version else {
            throw FuzzViolation("Envelope.open accepted \(bytes.count) bytes of an unknown format")
        }
        let resealed: Data?
        do {
            let key = testKey.withUnsafeBytes { SymmetricKey(data: $0) }
            let nonce = try AES.GCM.Nonce(data: Array(bytes[1..<13]))
            resealed = try AES.GCM.seal(plaintext, using: key, nonce: nonce,
                                        authenticating: Envelope.associatedData(collection: collection, id: id)).combined
        } catch {
            throw FuzzViolation("could not reseal an opened envelope: \(error)")
        }
        guard let resealed, [Envelope.version] + [UInt8](resealed) == bytes else {
            throw FuzzViolation("Envelope.open accepted bytes that the test key did not seal")
        }
    }

    private static func sealRoundTrip(_ plaintext: Data) throws {
        let sealed: Data
        do {
            sealed = try Envelope.seal(plaintext, key: testKey, collection: collection, id: id)
        } catch {
            throw FuzzViolation("Envelope.seal threw \(error)")
        }
        guard sealed.count == plaintext.count + Envelope.overhead else {
            throw FuzzViolation("sealed \(plaintext.count) bytes into \(sealed.count)")
        }
        let opened: Data
        do {
            opened = try Envelope.open(sealed, key: testKey, collection: collection, id: id)
        } catch {
            throw FuzzViolation("a freshly sealed envelope does not open: \(error)")
        }
        guard opened == plaintext else { throw FuzzViolation("open(seal(x)) != x") }
        // The same bytes inside a larger buffer (a `Data` slice whose indices do not start at 0).
        let slice = (Data([0xA5, 0x5A]) + sealed + Data([0x00])).dropFirst(2).dropLast()
        guard (try? Envelope.open(slice, key: testKey, collection: collection, id: id)) == plaintext else {
            throw FuzzViolation("a sealed envelope does not open from a Data slice")
        }
        try expectTampered("another id") { try Envelope.open(sealed, key: testKey, collection: collection, id: id + "x") }
        try expectTampered("another collection") {
            try Envelope.open(sealed, key: testKey, collection: CollectionName.keystores.rawValue, id: id)
        }
        try expectTampered("another key") { try Envelope.open(sealed, key: otherKey, collection: collection, id: id) }
        try expectTampered("truncated") { try Envelope.open(sealed.dropLast(), key: testKey, collection: collection, id: id) }
        try expectTampered("extended") { try Envelope.open(sealed + Data([0]), key: testKey, collection: collection, id: id) }

        // Every byte of small envelopes; of larger ones the header, the tag and a spread of the rest.
        var positions = Set(0..<min(sealed.count, 13))
        positions.formUnion(max(0, sealed.count - 16)..<sealed.count)
        if sealed.count <= 96 {
            positions.formUnion(0..<sealed.count)
        } else {
            let step = max(1, sealed.count / 32)
            positions.formUnion(stride(from: 13, to: sealed.count, by: step))
        }
        var flipped = [UInt8](sealed)
        for position in positions.sorted() {
            let mask = UInt8(1) << UInt8(position % 8)
            flipped[position] ^= mask
            try expectTampered("bit \(position % 8) of byte \(position) flipped") {
                try Envelope.open(Data(flipped), key: testKey, collection: collection, id: id)
            }
            flipped[position] ^= mask
        }
    }

    // MARK: Item JSON (FuzzItemJSON)

    /// `ItemCodec.decode`: an item that decodes re-encodes to bytes that decode equal (a fixed
    /// point), seals and opens back equal, and its history patches apply without trouble.
    public static func itemJSON(_ data: Data) throws {
        guard let item = try? ItemCodec.decode(data) else { return }
        _ = ItemValidation.problems(in: item)
        try itemSurvivesVault(item, what: "a decoded item")
        var entry = item.entry.jsonValue
        for step in item.history {
            entry = MergePatch.apply(step.patch, to: entry)
            _ = Entry(jsonValue: entry)
        }
    }

    /// What the vault does with an item: encode it, seal it, open it, decode it.
    static func itemSurvivesVault(_ item: Item, what: String) throws {
        let encoded: Data
        do {
            encoded = try ItemCodec.encode(item)
        } catch {
            throw FuzzViolation("\(what) does not encode: \(error)")
        }
        let again: Item
        do {
            again = try ItemCodec.decode(encoded)
        } catch {
            throw FuzzViolation("\(what) encodes to JSON that does not decode: \(String(decoding: encoded, as: UTF8.self))")
        }
        guard again == item else {
            throw FuzzViolation("\(what) changed through encoding: \(String(decoding: encoded, as: UTF8.self))")
        }
        guard (try? ItemCodec.encode(again)) == encoded else {
            throw FuzzViolation("\(what): encoding is not a fixed point")
        }
        guard RecordID.isValid(item.id) else { return }
        let ring = KeyRing(hashingKey: SecureBuffer(copying: (0..<UInt8(KeyRing.keyLength)).map { $0 }))
        ring.addKey(for: item.id)
        let opened: Item
        do {
            opened = try ItemSealing.open(try ItemSealing.seal(item, ring: ring, lineage: .first), ring: ring)
        } catch {
            throw FuzzViolation("\(what) does not seal and open: \(error)")
        }
        guard opened == item else { throw FuzzViolation("\(what) changed through sealing") }
    }

    // MARK: Import (FuzzImport)

    /// `ItemExchange.parseExport`: refuses with `invalidImport` or returns valid items with
    /// distinct ids, each of which survives the vault, and exporting them imports back equal.
    public static func importFile(_ data: Data) throws {
        let items: [Item]
        do {
            items = try ItemExchange.parseExport(data, now: importNow)
        } catch let error as CoreError {
            guard case .invalidImport = error else { throw FuzzViolation("parseExport threw \(error)") }
            return
        } catch {
            throw FuzzViolation("parseExport threw \(error), not CoreError.invalidImport")
        }
        guard Set(items.map(\.id)).count == items.count else { throw FuzzViolation("imported a duplicate id") }
        for item in items {
            let problems = ItemValidation.problems(in: item)
            guard problems.isEmpty else { throw FuzzViolation("imported an invalid item: \(problems)") }
            try itemSurvivesVault(item, what: "an imported item")
        }
        let exported: String
        do {
            exported = try ItemExchange.text(items.map(ItemExchange.exportObject))
        } catch {
            throw FuzzViolation("imported items do not export: \(error)")
        }
        let again: [Item]
        do {
            again = try ItemExchange.parseExport(Data(exported.utf8), now: importNow)
        } catch {
            throw FuzzViolation("an export of imported items does not import: \(error)\n\(exported)")
        }
        guard again == items else { throw FuzzViolation("export and import changed the items:\n\(exported)") }
    }

    // MARK: Replaying files

    /// The replay mode of a fuzz target: runs `check` over each file named in `arguments`
    /// (a directory stands for the files in it) and prints one line per finding.
    ///
    /// - Returns: the exit status: 0 when every file passed, 1 when one broke an invariant,
    ///   2 for a usage or file error. A crash ends the process, as under libFuzzer.
    public static func replay(_ arguments: [String], name: String, check: (Data) throws -> Void) -> Int32 {
        let paths = arguments.filter { !$0.hasPrefix("-") }
        guard !paths.isEmpty else {
            print("usage: \(name) FILE|DIRECTORY… (runs the \(name) check over each file; fuzz with make fuzz)")
            return 2
        }
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                print("\(path): no such file")
                return 2
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().filter { !$0.hasPrefix(".") }.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        var failures = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                print("\(file): unreadable")
                return 2
            }
            do {
                try check(data)
            } catch {
                failures += 1
                print("\(file): \(error)")
            }
        }
        print("\(name): \(files.count) files, \(failures) findings")
        return failures == 0 ? 0 : 1
    }
}
