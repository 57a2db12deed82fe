/// Blowfish (Schneier, 1993) as bcrypt uses it: the cipher's state, its key schedule with an
/// optional salt (bcrypt's "expensive key schedule"), and the encryption of one 64-bit block.
/// Only `BcryptPBKDF` uses it, to open passphrase-protected OpenSSH key files.
struct Blowfish {
    /// The P-array (18 words), then the four S-boxes (256 words each), as one array: the key
    /// schedule fills them in this order.
    private var state: [UInt32]

    static let stateWords = 18 + 4 * 256
    /// π's digits: the same for every Blowfish, computed once per process.
    static let initialState = PiWords.fraction(count: stateWords)

    init() {
        state = Self.initialState
    }

    /// The key schedule: the P-array XORed with `key` (cycled), then every word of P and S
    /// replaced by encrypting the running block, XORed first with `salt` (cycled) when given.
    mutating func expand(key: [UInt8], salt: [UInt8]? = nil) {
        state.withUnsafeMutableBufferPointer { words in
            var keyIndex = 0
            for index in 0..<18 { words[index] ^= Self.word(from: key, at: &keyIndex) }
            var left: UInt32 = 0, right: UInt32 = 0
            var saltIndex = 0
            for index in stride(from: 0, to: Self.stateWords, by: 2) {
                if let salt {
                    left ^= Self.word(from: salt, at: &saltIndex)
                    right ^= Self.word(from: salt, at: &saltIndex)
                }
                Self.encrypt(&left, &right, with: UnsafeBufferPointer(words))
                words[index] = left
                words[index + 1] = right
            }
        }
    }

    /// Encrypts the block `left ‖ right` in place.
    func encrypt(_ left: inout UInt32, _ right: inout UInt32) {
        state.withUnsafeBufferPointer { words in Self.encrypt(&left, &right, with: words) }
    }

    /// Sixteen Feistel rounds; the last swap undone, then the two output whitening words.
    @inline(__always)
    private static func encrypt(_ left: inout UInt32, _ right: inout UInt32, with words: UnsafeBufferPointer<UInt32>) {
        var l = left, r = right
        for round in 0..<16 {
            l ^= words[round]
            let f = ((words[18 + Int(l >> 24)] &+ words[274 + Int((l >> 16) & 0xFF)]) ^ words[530 + Int((l >> 8) & 0xFF)])
                &+ words[786 + Int(l & 0xFF)]
            r ^= f
            swap(&l, &r)
        }
        left = r ^ words[17]
        right = l ^ words[16]
    }

    /// The next four bytes of `bytes` as a big-endian word, wrapping round at its end.
    static func word(from bytes: [UInt8], at index: inout Int) -> UInt32 {
        var word: UInt32 = 0
        for _ in 0..<4 {
            if index >= bytes.count { index = 0 }
            word = word << 8 | UInt32(bytes[index])
            index += 1
        }
        return word
    }
}
