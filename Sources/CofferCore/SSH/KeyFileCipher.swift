import _CryptoExtras
import Crypto
import Foundation

/// The encryption of a passphrase-protected OpenSSH key file's private section: bcrypt_pbkdf
/// (salt and rounds in the KDF options) gives the AES key and the counter's start; AES-CTR with a
/// 128-bit big-endian counter, as OpenSSH's aes*-ctr. The plaintext exists only in memory.
enum KeyFileCipher {
    /// Key lengths of the ciphers taken; others (AES-GCM, ChaCha20-Poly1305) are refused.
    static let keyLengths = ["aes128-ctr": 16, "aes192-ctr": 24, "aes256-ctr": 32]

    static func open(_ sealed: Data, cipher: String, kdf: String, options: Data, passphrase: [UInt8]) throws(SSHKeyError) -> Data {
        guard kdf == "bcrypt" else { throw .unsupported("the key derivation “\(kdf.prefix(40))”") }
        guard let keyLength = keyLengths[cipher] else {
            throw .unsupported("the cipher “\(cipher.prefix(40))” (Coffer opens aes128/192/256-ctr; `ssh-add FILE` opens any)")
        }
        var reader = SSHWireReader(options)
        let salt = try reader.string()
        let rounds = try reader.uint32()
        try reader.expectEnd()
        guard sealed.count % 16 == 0 else { throw .malformed("its encrypted part is not whole AES blocks") }
        var material = try BcryptPBKDF.derive(passphrase: passphrase, salt: Array(salt), rounds: rounds, count: keyLength + 16)
        defer { for index in material.indices { material[index] = 0 } }
        do {
            let key = SymmetricKey(data: material.prefix(keyLength))
            let nonce = try AES._CTR.Nonce(nonceBytes: material.suffix(16))
            return try AES._CTR.decrypt(sealed, using: key, nonce: nonce)
        } catch {
            throw .malformed("its encrypted part cannot be decrypted")
        }
    }
}
