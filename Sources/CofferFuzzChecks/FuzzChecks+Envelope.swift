import CofferCore
import Crypto
import Foundation

extension FuzzChecks {
    /// The bytes as a sealed envelope: opening with the test key fails with `tampered`, or the
    /// bytes are exactly what sealing the plaintext with that key and their nonce gives. The
    /// bytes as plaintext: `open(seal(x)) == x`, also from a `Data` slice; flipping a bit of the
    /// sealed bytes, or opening under another id, collection or key, fails with `tampered`.
    ///
    /// The paddings around envelopes (issue 41, finding 6): the bytes as a padded file's, under
    /// a size the input picks, are refused as tampered (never a crash); as a file, they seal to
    /// their size class and open back; as a shared vault's padded name, they are a valid name
    /// followed by NULs to 64 bytes, or refused.
    public static func envelope(_ data: Data) throws {
        try openArbitrary(data)
        try sealRoundTrip(data)
        try paddedFile(data)
        try paddedShareName(data)
    }

    private static let fileItem = "fuzz-item"
    private static let fileRing: KeyRing = {
        let ring = KeyRing(hashingKey: SecureBuffer(copying: (0..<UInt8(KeyRing.keyLength)).map { $0 }))
        ring.addKey(for: fileItem)
        return ring
    }()

    private static func paddedFile(_ data: Data) throws {
        var choice = InputChoice(data)
        var claimed = Attachment(name: "f", bytes: data, added: Timestamp(milliseconds: 0))
        claimed.size = choice.next(below: data.count + 2) - 1
        try expectTampered("arbitrary bytes as a padded file of \(claimed.size) bytes") {
            try AttachmentSealing.open(data, item: fileItem, attachment: claimed, ring: fileRing)
        }
        let attachment = Attachment(name: "f", bytes: data, added: Timestamp(milliseconds: 0))
        let sealed: Data = try mustSucceed {
            try AttachmentSealing.seal(data, item: fileItem, attachment: attachment.id, ring: fileRing)
        } else: {
            "AttachmentSealing.seal threw \($0)"
        }
        guard sealed.count == SizeClass.file(data.count + Envelope.overhead) else {
            throw FuzzViolation("a file of \(data.count) bytes sealed into \(sealed.count), not its class")
        }
        guard (try? AttachmentSealing.open(sealed, item: fileItem, attachment: attachment, ring: fileRing)) == data else {
            throw FuzzViolation("a padded file does not open back")
        }
        try expectTampered("a padded file cut inside its envelope") {
            try AttachmentSealing.open(sealed.prefix(Envelope.overhead + data.count - 1), item: fileItem, attachment: attachment, ring: fileRing)
        }
    }

    private static func paddedShareName(_ data: Data) throws {
        guard let name = SealedShareName.name(padded: data) else { return }
        guard SharedVaultName.isValid(name),
              Data(name.utf8) + Data(count: SharedVaultName.limit - name.utf8.count) == data else {
            throw FuzzViolation("a padded share name read \(name.debugDescription) from bytes that do not pad it")
        }
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
        let sealed: Data = try mustSucceed {
            try Envelope.seal(plaintext, key: testKey, collection: collection, id: id)
        } else: {
            "Envelope.seal threw \($0)"
        }
        guard sealed.count == plaintext.count + Envelope.overhead else {
            throw FuzzViolation("sealed \(plaintext.count) bytes into \(sealed.count)")
        }
        let opened: Data = try mustSucceed {
            try Envelope.open(sealed, key: testKey, collection: collection, id: id)
        } else: {
            "a freshly sealed envelope does not open: \($0)"
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

        // Three bit flips per input — one in the header (version and nonce), one in the tag, one
        // anywhere — at positions the input picks, so a finding replays from its file. Flipping
        // every byte of small envelopes (a spread of ~60 of larger ones) was 80 % of each
        // execution: 163 executions/s, ~17 h for 10 M. Across a run every position is flipped
        // many times over.
        var choice = InputChoice(plaintext)
        let positions = [choice.next(below: 13), sealed.count - 16 + choice.next(below: 16), choice.next(below: sealed.count)]
        var flipped = [UInt8](sealed)
        for position in positions {
            let mask = UInt8(1) << UInt8(choice.next(below: 8))
            flipped[position] ^= mask
            try expectTampered("bit \(mask.trailingZeroBitCount) of byte \(position) flipped") {
                try Envelope.open(Data(flipped), key: testKey, collection: collection, id: id)
            }
            flipped[position] ^= mask
        }
    }
}
