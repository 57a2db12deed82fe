import CSodium
import Crypto
import Foundation

/// The stream cipher that hides protected values (`Protected="True"`) inside the XML: one
/// keystream over the whole document, used by each protected value in document order. KDBX 4
/// uses ChaCha20 (key and nonce from SHA-512 of the inner header's key), KDBX 3.1 Salsa20 (key
/// SHA-256 of the header's key, a fixed nonce). libsodium does the cipher.
final class KDBXInnerStream {
    enum Algorithm { case salsa20, chacha20 }

    private let algorithm: Algorithm
    private let key: SecureBuffer
    private let nonce: [UInt8]
    /// Keystream bytes used so far.
    private var position = 0

    init(id: UInt32, key streamKey: [UInt8]) throws(KDBXFailure) {
        Sodium.initialize()
        switch id {
        case 2:
            algorithm = .salsa20
            key = SecureBuffer(copying: Array(SHA256.hash(data: streamKey)))
            nonce = [0xE8, 0x30, 0x09, 0x4B, 0x97, 0x20, 0x5D, 0x2A]
        case 3:
            algorithm = .chacha20
            let hash = Array(SHA512.hash(data: streamKey))
            key = SecureBuffer(copying: Array(hash[0..<32]))
            nonce = Array(hash[32..<44])
        default:
            throw KDBXFailure("protects its values with a stream cipher Coffer does not know (only Salsa20 and ChaCha20)")
        }
    }

    /// `bytes` XORed with the next `bytes.count` bytes of the keystream.
    func reveal(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        let block = position / 64, skip = position % 64
        var buffer = [UInt8](repeating: 0, count: skip) + bytes
        let count = buffer.count
        key.withUnsafeBytes { keyBytes in
            let keyPointer = keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            buffer.withUnsafeMutableBufferPointer { out in
                guard let base = out.baseAddress else { return }
                switch algorithm {
                case .chacha20:
                    _ = crypto_stream_chacha20_ietf_xor_ic(base, base, UInt64(count), nonce, UInt32(block), keyPointer)
                case .salsa20:
                    _ = crypto_stream_salsa20_xor_ic(base, base, UInt64(count), nonce, UInt64(block), keyPointer)
                }
            }
        }
        position += bytes.count
        return Array(buffer[skip...])
    }
}
