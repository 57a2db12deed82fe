import CSodium
import Crypto
import _CryptoExtras
import Foundation

/// The outer cipher of a KDBX payload: AES-256-CBC with PKCS#7 padding (swift-crypto) or
/// ChaCha20 with a 96-bit nonce, counter 0 (libsodium).
enum KDBXCipher {
    static func decrypt(_ ciphertext: [UInt8], cipher: KDBXOuterHeader.Cipher, key: SecureBuffer, iv: [UInt8]) throws(KDBXFailure) -> [UInt8] {
        switch cipher {
        case .aes256:
            guard ciphertext.count % 16 == 0, !ciphertext.isEmpty else { throw KDBXFailure("is damaged: its encrypted data is not whole AES blocks") }
            do {
                let symmetric = key.withUnsafeBytes { SymmetricKey(data: $0) }
                return Array(try AES._CBC.decrypt(ciphertext, using: symmetric, iv: AES._CBC.IV(ivBytes: iv)))
            } catch {
                throw KDBXFailure.wrongKey
            }
        case .chacha20:
            return xorChaCha20(ciphertext, key: key, nonce: iv)
        }
    }

    static func encrypt(_ plaintext: [UInt8], cipher: KDBXOuterHeader.Cipher, key: SecureBuffer, iv: [UInt8]) throws(KDBXFailure) -> [UInt8] {
        switch cipher {
        case .aes256:
            do {
                let symmetric = key.withUnsafeBytes { SymmetricKey(data: $0) }
                return Array(try AES._CBC.encrypt(plaintext, using: symmetric, iv: AES._CBC.IV(ivBytes: iv)))
            } catch {
                throw KDBXFailure("could not be encrypted")
            }
        case .chacha20:
            return xorChaCha20(plaintext, key: key, nonce: iv)
        }
    }

    private static func xorChaCha20(_ input: [UInt8], key: SecureBuffer, nonce: [UInt8]) -> [UInt8] {
        Sodium.initialize()
        var output = input
        let count = output.count
        key.withUnsafeBytes { keyBytes in
            output.withUnsafeMutableBufferPointer { out in
                guard let base = out.baseAddress else { return }
                _ = crypto_stream_chacha20_ietf_xor(base, base, UInt64(count), nonce,
                                                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return output
    }
}
