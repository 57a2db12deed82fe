import Crypto
import Foundation

/// A KDBX file opened: the inner XML document, the attachments of KDBX 4's inner header (by
/// index, what `<Value Ref="N"/>` names) and the stream that reveals protected values.
///
/// The steps, each refusing the file with one sentence: the clear header (bounds on the key
/// derivation checked before any work), the key, then for KDBX 4 the header's HMAC, each block's
/// HMAC, decryption; for KDBX 3.1 decryption, the start bytes, each block's SHA-256. Then gzip,
/// inflated to at most `inflatedLimit` bytes, and KDBX 4's inner header.
struct KDBXPayload {
    var xml: Data
    var binaries: [Data] = []
    var innerStream: KDBXInnerStream

    /// The most bytes the payload may inflate to (a few kilobytes of gzip can claim gigabytes).
    static let inflatedLimit = 512 << 20
    /// More attachments than this in the inner header is not a database Coffer imports.
    static let binaryLimit = 100_000

    init(_ file: [UInt8], credentials: KDBXCredentials, inflatedLimit: Int = KDBXPayload.inflatedLimit) throws(KDBXFailure) {
        var reader = KDBXByteReader(file)
        let header = try KDBXOuterHeader(&reader)
        let derivation = try KDBXKeyDerivation(header)
        let composite = try credentials.compositeKey()
        let transformed = try derivation.transform(composite)
        let cipherKey = Self.hash(SHA256.self, header.masterSeed, transformed)
        var plain: [UInt8]
        if header.isVersion4 {
            let checksum = Array(try reader.take(32)), mac = Array(try reader.take(32))
            guard Array(SHA256.hash(data: Array(header.bytes))) == checksum else {
                throw KDBXFailure("is damaged: its header does not match its checksum")
            }
            let hmacBase = Self.hash(SHA512.self, header.masterSeed, transformed, [0x01])
            let headerKey = SymmetricKey(data: KDBXBlocks.blockKey(index: .max, baseKey: hmacBase))
            guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Array(header.bytes), using: headerKey) else {
                throw KDBXFailure.wrongKey
            }
            let ciphertext = try KDBXBlocks.hmacBlocks(&reader, baseKey: hmacBase)
            plain = try KDBXCipher.decrypt(ciphertext, cipher: header.cipher, key: cipherKey, iv: header.encryptionIV)
        } else {
            let ciphertext = Array(reader.bytes[reader.offset...])
            guard !ciphertext.isEmpty else { throw KDBXFailure.cutShort }
            let decrypted = try KDBXCipher.decrypt(ciphertext, cipher: header.cipher, key: cipherKey, iv: header.encryptionIV)
            guard decrypted.count >= 32, Array(decrypted[0..<32]) == header.streamStartBytes else { throw KDBXFailure.wrongKey }
            var blocks = KDBXByteReader(decrypted, offset: 32)
            plain = try KDBXBlocks.hashedBlocks(&blocks)
        }
        if header.isCompressed {
            switch Gzip.inflate(Data(plain), limit: inflatedLimit) {
            case .success(let inflated): plain = Array(inflated)
            case .failure(.tooLarge): throw KDBXFailure("inflates to more than \(inflatedLimit >> 20) MiB (a compression bomb?)")
            case .failure(.notGzip): throw KDBXFailure("is damaged: its compressed data is not whole gzip")
            }
        }
        guard header.isVersion4 else {
            innerStream = try KDBXInnerStream(id: header.innerStreamID, key: header.protectedStreamKey)
            xml = Data(plain)
            return
        }
        var inner = KDBXByteReader(plain)
        var streamID: UInt32?, streamKey: [UInt8]?
        var binaries: [Data] = []
        while true {
            let id = try inner.integer(UInt8.self)
            let size = try inner.integer(Int32.self)
            guard size >= 0 else { throw KDBXFailure("is damaged: its inner header is malformed") }
            let value = try inner.take(Int(size))
            switch id {
            case 0: break
            case 1:
                guard value.count == 4 else { throw KDBXFailure("is damaged: its inner header is malformed") }
                streamID = KDBXByteReader.littleEndian(value)
            case 2: streamKey = Array(value)
            case 3:
                guard !value.isEmpty else { throw KDBXFailure("is damaged: an attachment in its inner header is malformed") }
                guard binaries.count < Self.binaryLimit else { throw KDBXFailure("has more than \(Self.binaryLimit) attachments") }
                // The first byte is flags (bit 0: KeePass keeps it protected in memory); the rest is the file.
                binaries.append(Data(value.dropFirst()))
            default: break
            }
            if id == 0 { break }
        }
        guard let streamID, let streamKey else { throw KDBXFailure("is damaged: its inner header has no stream key") }
        innerStream = try KDBXInnerStream(id: streamID, key: streamKey)
        self.binaries = binaries
        xml = Data(plain[inner.offset...])
    }

    private static func hash<H: HashFunction>(_: H.Type, _ seed: [UInt8], _ key: SecureBuffer, _ suffix: [UInt8] = []) -> SecureBuffer {
        var hasher = H()
        hasher.update(data: seed)
        key.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(data: suffix)
        return SecureBuffer(copying: Array(hasher.finalize()))
    }
}
