import Crypto

/// bcrypt_pbkdf, the key derivation of OpenSSH's passphrase-protected key files (PROTOCOL.key;
/// written by Niels Provos and Ted Unangst for OpenBSD): PBKDF2's shape with bcrypt's
/// expensive Blowfish key schedule, over SHA-512 digests of the passphrase and salt. The output
/// bytes are spread across blocks (byte i of block b lands at i·stride + b), so every byte of the
/// key costs all the rounds.
enum BcryptPBKDF {
    /// The rounds taken at most: ssh-keygen's default is 16; more than this only lets a file
    /// make the import spin for minutes.
    static let maximumRounds: UInt32 = 1024

    static func derive(passphrase: [UInt8], salt: [UInt8], rounds: UInt32, count: Int) throws(SSHKeyError) -> [UInt8] {
        guard !passphrase.isEmpty, !salt.isEmpty, salt.count <= 1 << 10, (1...64).contains(count) else {
            throw .malformed("its key derivation parameters are out of range")
        }
        guard (1...maximumRounds).contains(rounds) else {
            throw .unsupported("\(rounds) bcrypt rounds (Coffer takes 1 to \(maximumRounds); `ssh-add FILE` takes any)")
        }
        let blockSize = 32
        let stride = (count + blockSize - 1) / blockSize
        let perBlock = (count + stride - 1) / stride
        let hashedPassphrase = Array(SHA512.hash(data: passphrase))
        var key = [UInt8](repeating: 0, count: count)
        var block: UInt32 = 1
        var left = count
        while left > 0 {
            var countedSalt = salt
            countedSalt += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: block >> UInt32($0)) }
            var output = hash(hashedPassphrase, Array(SHA512.hash(data: countedSalt)))
            var accumulated = output
            for _ in 1..<rounds {
                output = hash(hashedPassphrase, Array(SHA512.hash(data: output)))
                for index in 0..<blockSize { accumulated[index] ^= output[index] }
            }
            var written = 0
            for index in 0..<min(perBlock, left) {
                let destination = index * stride + Int(block - 1)
                if destination >= count { break }
                key[destination] = accumulated[index]
                written += 1
            }
            left -= written
            block += 1
        }
        return key
    }

    /// bcrypt's core on digests: Blowfish keyed with the passphrase and salted with the salt, then
    /// 64 times rekeyed with each alone; its encryption, 64 times over, of a fixed 32-byte text.
    static func hash(_ passphrase: [UInt8], _ salt: [UInt8]) -> [UInt8] {
        var cipher = Blowfish()
        cipher.expand(key: passphrase, salt: salt)
        for _ in 0..<64 {
            cipher.expand(key: salt)
            cipher.expand(key: passphrase)
        }
        let text = Array("OxychromaticBlowfishSwatDynamite".utf8)
        var index = 0
        var words = (0..<8).map { _ in Blowfish.word(from: text, at: &index) }
        for _ in 0..<64 {
            for pair in 0..<4 {
                var (left, right) = (words[2 * pair], words[2 * pair + 1])
                cipher.encrypt(&left, &right)
                (words[2 * pair], words[2 * pair + 1]) = (left, right)
            }
        }
        // Each word little-endian, as OpenBSD's bcrypt_pbkdf copies it out.
        return words.flatMap { word in [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }
}
