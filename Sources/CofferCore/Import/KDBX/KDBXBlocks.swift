import Crypto
import Foundation

/// The block streams that check a KDBX payload piece by piece before anything of it is used.
enum KDBXBlocks {
    /// The most bytes a payload may hold once its blocks are joined (the file is at most
    /// `InputFile.importLimit` anyway; this bounds what a block's size field can claim).
    static let payloadLimit = 256 << 20

    /// KDBX 4's HMAC block stream (after the header): each block is an HMAC-SHA256, a size and
    /// the ciphertext; its key is SHA-512(index ‖ HMAC base key), its message index ‖ size ‖
    /// data; a block of size 0 ends the stream. Any block whose HMAC differs refuses the file.
    static func hmacBlocks(_ reader: inout KDBXByteReader, baseKey: SecureBuffer) throws(KDBXFailure) -> [UInt8] {
        var joined: [UInt8] = []
        var index: UInt64 = 0
        while true {
            guard reader.remaining >= 36 else {
                throw KDBXFailure("is cut short (it ends in block \(index + 1), before its last block)")
            }
            let mac = Array(try reader.take(32))
            let size = try reader.integer(Int32.self)
            guard size >= 0, Int(size) <= reader.remaining else {
                throw KDBXFailure("is cut short or damaged (block \(index + 1) claims more bytes than the file has)")
            }
            let data = try reader.take(Int(size))
            let key = SymmetricKey(data: blockKey(index: index, baseKey: baseKey))
            var message = index.littleEndianBytes + size.littleEndianBytes
            message.append(contentsOf: data)
            guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: key) else {
                throw KDBXFailure("is damaged or was altered: block \(index + 1) does not match its HMAC")
            }
            if size == 0 {
                guard reader.remaining == 0 else { throw KDBXFailure("has bytes after its last block") }
                return joined
            }
            guard joined.count + Int(size) <= payloadLimit else { throw KDBXFailure("holds more than 256 MiB of data") }
            joined.append(contentsOf: data)
            index += 1
        }
    }

    /// HMAC-SHA256's key for block `index` (UInt64.max: the header's).
    static func blockKey(index: UInt64, baseKey: SecureBuffer) -> [UInt8] {
        var hasher = SHA512()
        hasher.update(data: index.littleEndianBytes)
        baseKey.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize())
    }

    /// KDBX 3.1's hashed block stream (inside the decrypted payload, after the start bytes): each
    /// block is an index, the SHA-256 of its data, a size and the data; a block of size 0 ends it.
    static func hashedBlocks(_ reader: inout KDBXByteReader) throws(KDBXFailure) -> [UInt8] {
        var joined: [UInt8] = []
        var expected: UInt32 = 0
        while true {
            guard reader.remaining >= 40 else { throw KDBXFailure("is cut short (it ends in block \(expected + 1), before its last block)") }
            let index = try reader.integer(UInt32.self)
            let hash = Array(try reader.take(32))
            let size = try reader.integer(UInt32.self)
            guard index == expected else { throw KDBXFailure("is damaged: its blocks are out of order") }
            guard Int(size) <= reader.remaining else { throw KDBXFailure("is cut short or damaged (block \(index + 1) claims more bytes than the file has)") }
            let data = try reader.take(Int(size))
            if size == 0 {
                guard hash.allSatisfy({ $0 == 0 }) else { throw KDBXFailure("is damaged: its last block is malformed") }
                return joined
            }
            guard Array(SHA256.hash(data: Array(data))) == hash else {
                throw KDBXFailure("is damaged or was altered: block \(index + 1) does not match its checksum")
            }
            guard joined.count + Int(size) <= payloadLimit else { throw KDBXFailure("holds more than 256 MiB of data") }
            joined.append(contentsOf: data)
            expected += 1
        }
    }
}
