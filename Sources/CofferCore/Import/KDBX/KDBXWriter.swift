import Crypto
import Foundation

/// Writes a KDBX 4.0 file around an inner XML document: the clear header (ChaCha20 or AES-256,
/// gzip, the KDF's parameters), its SHA-256 and HMAC, then the HMAC block stream of the
/// encrypted inner header (ChaCha20 inner stream, the attachments) and XML. The XML's protected
/// values must already be hidden with `innerStream` (`KDBXExport` does it while writing the XML,
/// in document order).
struct KDBXWriter {
    var cipher = KDBXOuterHeader.Cipher.chacha20
    var derivation: KDBXKeyDerivation
    var isCompressed = true
    /// The inner bytes given to `write(inner:)` are gzip already (hostile-file tests make a bomb
    /// with the `gzip` tool, without holding what it inflates to).
    var isInnerGzipped = false
    /// Bytes of ciphertext per HMAC block (KeePass writes 1 MiB).
    var blockSize = 1 << 20
    /// The inner stream's key: the XML's protected values are XORed with the stream it makes.
    let innerStreamKey = Array(SecureBuffer.random(count: 64).withUnsafeBytes { Data($0) })

    init(derivation: KDBXKeyDerivation) {
        self.derivation = derivation
    }

    func innerStream() throws(KDBXFailure) -> KDBXInnerStream {
        try KDBXInnerStream(id: 3, key: innerStreamKey)
    }

    /// Argon2id (KDBX 4's UUID) with a new salt.
    static func argon2id(memory: Int, iterations: Int, parallelism: UInt32 = 1) -> KDBXKeyDerivation {
        .argon2(isHybrid: true, salt: random(32), memory: UInt64(memory), iterations: UInt64(iterations), parallelism: parallelism,
                version: 0x13)
    }

    func write(xml: Data, binaries: [Data], credentials: KDBXCredentials) throws(KDBXFailure) -> [UInt8] {
        var inner: [UInt8] = [1] + UInt32(4).littleEndianBytes + UInt32(3).littleEndianBytes
        inner += [2] + UInt32(innerStreamKey.count).littleEndianBytes + innerStreamKey
        for binary in binaries {
            inner += [3] + UInt32(binary.count + 1).littleEndianBytes + [0x01] + Array(binary)
        }
        inner += [0] + UInt32(0).littleEndianBytes
        inner += Array(xml)
        return try write(inner: inner, credentials: credentials)
    }

    /// The file around `inner`: KDBX 4's inner header and XML as they are before compression.
    func write(inner: [UInt8], credentials: KDBXCredentials) throws(KDBXFailure) -> [UInt8] {
        let masterSeed = Self.random(32)
        let iv = Self.random(cipher == .aes256 ? 16 : 12)
        var header: [UInt8] = KDBXOuterHeader.signature + UInt16(0).littleEndianBytes + UInt16(4).littleEndianBytes
        func field(_ id: UInt8, _ value: [UInt8]) {
            header.append(id)
            header += UInt32(value.count).littleEndianBytes + value
        }
        field(2, cipher == .aes256 ? KDBXOuterHeader.aes256UUID : KDBXOuterHeader.chacha20UUID)
        field(3, UInt32(isCompressed ? 1 : 0).littleEndianBytes)
        field(4, masterSeed)
        field(7, iv)
        field(11, parameters())
        field(0, [0x0D, 0x0A, 0x0D, 0x0A])

        let transformed = try derivation.transform(try credentials.compositeKey())
        let cipherKey = Self.hash(SHA256.self, [masterSeed, transformed.withUnsafeBytes { Array($0) }])
        let hmacBase = Self.hash(SHA512.self, [masterSeed, transformed.withUnsafeBytes { Array($0) }, [0x01]])
        let plain = isCompressed && !isInnerGzipped ? Array(Gzip.deflate(Data(inner))) : inner
        let ciphertext = try KDBXCipher.encrypt(plain, cipher: cipher, key: cipherKey, iv: iv)

        var file = header + Array(SHA256.hash(data: header))
        file += Array(HMAC<SHA256>.authenticationCode(for: header, using: SymmetricKey(data: KDBXBlocks.blockKey(index: .max, baseKey: hmacBase))))
        var index: UInt64 = 0
        var offset = 0
        repeat {
            let block = Array(ciphertext[offset..<min(offset + blockSize, ciphertext.count)])
            let size = Int32(block.count)
            let key = SymmetricKey(data: KDBXBlocks.blockKey(index: index, baseKey: hmacBase))
            file += Array(HMAC<SHA256>.authenticationCode(for: index.littleEndianBytes + size.littleEndianBytes + block, using: key))
            file += size.littleEndianBytes + block
            offset += block.count
            index += 1
            if block.isEmpty { break }
        } while true
        return file
    }

    private func parameters() -> [UInt8] {
        switch derivation {
        case .aes(let seed, let rounds):
            return KDBXVariantDictionary.encode([("$UUID", .bytes(KDBXKeyDerivation.aesKDBX4UUID)), ("R", .uint64(rounds)), ("S", .bytes(seed))])
        case .argon2(let isHybrid, let salt, let memory, let iterations, let parallelism, let version):
            return KDBXVariantDictionary.encode([
                ("$UUID", .bytes(isHybrid ? KDBXKeyDerivation.argon2idUUID : KDBXKeyDerivation.argon2dUUID)),
                ("I", .uint64(iterations)), ("M", .uint64(memory)), ("P", .uint32(parallelism)), ("S", .bytes(salt)), ("V", .uint32(version)),
            ])
        }
    }

    static func random(_ count: Int) -> [UInt8] {
        SecureBuffer.random(count: count).withUnsafeBytes { Array($0) }
    }

    private static func hash<H: HashFunction>(_: H.Type, _ parts: [[UInt8]]) -> SecureBuffer {
        var hasher = H()
        for part in parts { hasher.update(data: part) }
        return SecureBuffer(copying: Array(hasher.finalize()))
    }
}
