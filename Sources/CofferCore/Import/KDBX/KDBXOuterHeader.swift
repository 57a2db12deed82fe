import Foundation

/// The clear header at the start of a KDBX file: its version, the outer cipher, compression, the
/// seeds and the key derivation's parameters. KDBX 3.1 sizes its fields with 16 bits and keeps the
/// inner stream's key here; KDBX 4 sizes them with 32 bits and keeps the KDF in a
/// `KDBXVariantDictionary`.
struct KDBXOuterHeader {
    enum Cipher: Equatable { case aes256, chacha20 }

    var major: UInt16 = 0
    var minor: UInt16 = 0
    var cipher = Cipher.aes256
    var isCompressed = false
    var masterSeed: [UInt8] = []
    var encryptionIV: [UInt8] = []
    var kdf = KDBXVariantDictionary()
    /// KDBX 3.1 only: AES-KDF's seed and rounds, the inner stream, the first bytes of the payload.
    var transformSeed: [UInt8] = []
    var transformRounds: UInt64 = 0
    var protectedStreamKey: [UInt8] = []
    var streamStartBytes: [UInt8] = []
    var innerStreamID: UInt32 = 0
    /// The header's bytes, signature included (what KDBX 4's checksum and HMAC cover).
    var bytes: ArraySlice<UInt8> = []

    static let signature: [UInt8] = [0x03, 0xD9, 0xA2, 0x9A, 0x67, 0xFB, 0x4B, 0xB5]
    static let aes256UUID: [UInt8] = [0x31, 0xC1, 0xF2, 0xE6, 0xBF, 0x71, 0x43, 0x50, 0xBE, 0x58, 0x05, 0x21, 0x6A, 0xFC, 0x5A, 0xFF]
    static let chacha20UUID: [UInt8] = [0xD6, 0x03, 0x8A, 0x2B, 0x8B, 0x6F, 0x4C, 0xB5, 0xA5, 0x24, 0x33, 0x9A, 0x31, 0xDB, 0xB5, 0x9A]
    static let twofishUUID: [UInt8] = [0xAD, 0x68, 0xF2, 0x9F, 0x57, 0x6F, 0x4B, 0xB9, 0xA3, 0x6A, 0xD4, 0x7A, 0xF9, 0x65, 0x34, 0x6C]
    /// More fields than this is not a KeePass header (it writes about ten).
    static let fieldLimit = 64

    var isVersion4: Bool { major == 4 }

    /// Reads the header at the start of `reader`'s bytes, leaving the reader just after it.
    init(_ reader: inout KDBXByteReader) throws(KDBXFailure) {
        guard reader.bytes.count >= 12, Array(reader.bytes[0..<8]) == Self.signature else {
            throw KDBXFailure("is not a KeePass database (KDBX): its first bytes are not KeePass's signature")
        }
        _ = try reader.take(8)
        minor = try reader.integer(UInt16.self)
        major = try reader.integer(UInt16.self)
        guard major == 4 || (major == 3 && minor >= 1) else {
            throw KDBXFailure("is a KDBX \(major).\(minor) database; Coffer reads KDBX 3.1 and 4.x")
        }
        var seen = Set<UInt8>()
        for _ in 0..<Self.fieldLimit {
            let id = try reader.integer(UInt8.self)
            let size = isVersion4 ? Int(try reader.integer(UInt32.self)) : Int(try reader.integer(UInt16.self))
            let value = try reader.take(size)
            if id == 0 {
                bytes = reader.bytes[0..<reader.offset]
                try checkComplete(seen)
                return
            }
            seen.insert(id)
            try read(field: id, value)
        }
        throw KDBXFailure("has a header of more than \(Self.fieldLimit) fields")
    }

    private mutating func read(field id: UInt8, _ value: ArraySlice<UInt8>) throws(KDBXFailure) {
        switch id {
        case 2:
            switch Array(value) {
            case Self.aes256UUID: cipher = .aes256
            case Self.chacha20UUID: cipher = .chacha20
            case Self.twofishUUID: throw KDBXFailure("is encrypted with Twofish, which Coffer does not read (AES-256 and ChaCha20 are)")
            default: throw KDBXFailure("is encrypted with a cipher Coffer does not know")
            }
        case 3:
            guard value.count == 4 else { throw KDBXFailure("has a malformed compression flag") }
            let flag: UInt32 = KDBXByteReader.littleEndian(value)
            guard flag <= 1 else { throw KDBXFailure("uses a compression Coffer does not know") }
            isCompressed = flag == 1
        case 4: masterSeed = Array(value)
        case 5: transformSeed = Array(value)
        case 6:
            guard value.count == 8 else { throw KDBXFailure("has malformed key-derivation rounds") }
            transformRounds = KDBXByteReader.littleEndian(value)
        case 7: encryptionIV = Array(value)
        case 8: protectedStreamKey = Array(value)
        case 9: streamStartBytes = Array(value)
        case 10:
            guard value.count == 4 else { throw KDBXFailure("has a malformed inner stream") }
            innerStreamID = KDBXByteReader.littleEndian(value)
        case 11: kdf = try KDBXVariantDictionary(value)
        default: break  // public custom data (12) and comments (1): nothing Coffer keeps
        }
    }

    private func checkComplete(_ seen: Set<UInt8>) throws(KDBXFailure) {
        let needed: [UInt8] = isVersion4 ? [2, 4, 7, 11] : [2, 4, 5, 6, 7, 8, 9, 10]
        guard needed.allSatisfy(seen.contains) else { throw KDBXFailure("has a header without some of the fields KeePass always writes") }
        guard masterSeed.count == 32 else { throw KDBXFailure("has a master seed of the wrong size") }
        guard encryptionIV.count == (cipher == .aes256 ? 16 : 12) else { throw KDBXFailure("has an encryption IV of the wrong size") }
        if !isVersion4 && streamStartBytes.count != 32 { throw KDBXFailure("has stream start bytes of the wrong size") }
    }
}
