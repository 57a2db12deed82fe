import CArgon2
import Crypto
import _CryptoExtras
import Foundation

/// The key derivation a KDBX file asks for, checked against Coffer's bounds before any work:
/// a stranger's header could otherwise ask for 64 GiB of memory or 2⁶⁰ rounds.
enum KDBXKeyDerivation: Equatable {
    /// AES-KDF: the composite key encrypted `rounds` times with AES-256 under `seed`, then SHA-256.
    case aes(seed: [UInt8], rounds: UInt64)
    /// Argon2d or Argon2id (libargon2), `memory` in bytes.
    case argon2(isHybrid: Bool, salt: [UInt8], memory: UInt64, iterations: UInt64, parallelism: UInt32, version: UInt32)

    static let aesKDBX3UUID: [UInt8] = [0xC9, 0xD9, 0xF3, 0x9A, 0x62, 0x8A, 0x44, 0x60, 0xBF, 0x74, 0x0D, 0x08, 0xC1, 0x8A, 0x4F, 0xEA]
    static let aesKDBX4UUID: [UInt8] = [0x7C, 0x02, 0xBB, 0x82, 0x79, 0xA7, 0x4A, 0xC0, 0x92, 0x7D, 0x11, 0x4A, 0x00, 0x64, 0x82, 0x38]
    static let argon2dUUID: [UInt8] = [0xEF, 0x63, 0x6D, 0xDF, 0x8C, 0x29, 0x44, 0x4B, 0x91, 0xF7, 0xA9, 0xA4, 0x03, 0xE3, 0x0A, 0x0C]
    static let argon2idUUID: [UInt8] = [0x9E, 0x29, 0x8B, 0x19, 0x56, 0xDB, 0x47, 0x73, 0xB2, 0x3D, 0xFC, 0x3E, 0xC6, 0xF0, 0xA1, 0xE6]

    /// The most memory Argon2 may ask for: four times KeePassXC's default of 64 MiB is common, a
    /// gigabyte is already rare, and more would let a file exhaust the machine.
    static let memoryLimit: UInt64 = 1 << 30
    /// The most Argon2 passes: KeePassXC's one-second benchmark gives tens.
    static let iterationLimit: UInt64 = 1_000
    static let parallelismLimit: UInt32 = 64
    /// The most AES-KDF rounds: keepassxc-cli's one-second benchmark set 44 million on the 2-core
    /// machine, which a debug `coffer` derives in 1.6 s, so this is some 20 s; a five-second
    /// benchmark on a machine several times faster stays below it.
    static let aesRoundLimit: UInt64 = 500_000_000

    /// The derivation `header` names, within bounds.
    init(_ header: KDBXOuterHeader) throws(KDBXFailure) {
        guard header.isVersion4 else {
            guard header.transformSeed.count == 32 else { throw KDBXFailure("has an AES-KDF seed of the wrong size") }
            self = .aes(seed: header.transformSeed, rounds: header.transformRounds)
            try checkBounds()
            return
        }
        let parameters = header.kdf
        let uuid = parameters.bytes("$UUID") ?? []
        switch uuid {
        case Self.aesKDBX3UUID, Self.aesKDBX4UUID:
            guard let seed = parameters.bytes("S"), seed.count == 32, let rounds = parameters.number("R") else {
                throw KDBXFailure("has malformed AES-KDF parameters")
            }
            self = .aes(seed: seed, rounds: rounds)
        case Self.argon2dUUID, Self.argon2idUUID:
            guard let salt = parameters.bytes("S"), salt.count >= 8, salt.count <= 1_024,
                  let memory = parameters.number("M"), let iterations = parameters.number("I"),
                  let parallelism = parameters.number("P"), let version = parameters.number("V")
            else { throw KDBXFailure("has malformed Argon2 parameters") }
            if let secret = parameters.bytes("K"), !secret.isEmpty { throw KDBXFailure("uses an Argon2 secret key, which Coffer does not read") }
            if let data = parameters.bytes("A"), !data.isEmpty { throw KDBXFailure("uses Argon2 associated data, which Coffer does not read") }
            guard version == 0x10 || version == 0x13 else { throw KDBXFailure("uses an Argon2 version Coffer does not know") }
            guard parallelism >= 1, parallelism <= UInt64(Self.parallelismLimit) else {
                throw KDBXFailure("asks Argon2 for \(parallelism) lanes; Coffer allows 1 to \(Self.parallelismLimit)")
            }
            self = .argon2(isHybrid: uuid == Self.argon2idUUID, salt: salt, memory: memory, iterations: iterations,
                           parallelism: UInt32(parallelism), version: UInt32(version))
        default:
            throw KDBXFailure("uses a key derivation Coffer does not know")
        }
        try checkBounds()
    }

    private func checkBounds() throws(KDBXFailure) {
        switch self {
        case .aes(_, let rounds):
            guard rounds <= Self.aesRoundLimit else {
                throw KDBXFailure("asks for \(rounds) AES-KDF rounds; Coffer stops at \(Self.aesRoundLimit)")
            }
        case .argon2(_, _, let memory, let iterations, let parallelism, _):
            guard memory <= Self.memoryLimit else {
                throw KDBXFailure("asks Argon2 for \(memory / 1_048_576) MiB of memory; Coffer allows at most 1 GiB")
            }
            guard memory >= 8 * 1_024 * UInt64(parallelism) else { throw KDBXFailure("asks Argon2 for too little memory for its lanes") }
            guard iterations >= 1, iterations <= Self.iterationLimit else {
                throw KDBXFailure("asks Argon2 for \(iterations) iterations; Coffer allows 1 to \(Self.iterationLimit)")
            }
        }
    }

    /// The transformed key (32 bytes) of the composite key.
    func transform(_ compositeKey: SecureBuffer) throws(KDBXFailure) -> SecureBuffer {
        switch self {
        case .aes(let seed, let rounds): return try Self.aesTransform(compositeKey, seed: seed, rounds: rounds)
        case .argon2(let isHybrid, let salt, let memory, let iterations, let parallelism, let version):
            let output = SecureBuffer(count: 32)
            let status = output.withUnsafeMutableBytes { out in
                compositeKey.withUnsafeBytes { key in
                    salt.withUnsafeBytes { saltBytes in
                        coffer_argon2_hash(UInt32(iterations), UInt32(memory / 1_024), parallelism, key.baseAddress, key.count,
                                           saltBytes.baseAddress, saltBytes.count, out.baseAddress, out.count,
                                           isHybrid ? 2 : 0, version)
                    }
                }
            }
            guard status != Int32(COFFER_ARGON2_NOT_LOADED) else {
                throw KDBXFailure("needs Argon2, and libargon2.so.1 (Debian libargon2-1) could not be loaded")
            }
            guard status == 0 else { throw KDBXFailure("could not be opened: Argon2 failed (libargon2 error \(status))") }
            return output
        }
    }

    /// AES-KDF with AES-256-CBC over zero blocks: block i of CBC over zeros is E(block i−1), so
    /// the last block of `rounds` zero blocks with the key's half as IV is that half encrypted
    /// `rounds` times (what KeePass does with ECB), in BoringSSL's loop rather than ours.
    private static func aesTransform(_ compositeKey: SecureBuffer, seed: [UInt8], rounds: UInt64) throws(KDBXFailure) -> SecureBuffer {
        let key = SymmetricKey(data: seed)
        let chunk: UInt64 = 1 << 16
        let zeros = Data(count: Int(chunk) * 16)
        var halves = compositeKey.withUnsafeBytes { [Data($0.prefix(16)), Data($0.suffix(16))] }
        defer { for index in halves.indices { wipe(&halves[index]) } }
        do {
            for index in halves.indices {
                var left = rounds
                while left > 0 {
                    let blocks = min(left, chunk)
                    let encrypted = try AES._CBC.encrypt(zeros.prefix(Int(blocks) * 16), using: key,
                                                         iv: AES._CBC.IV(ivBytes: halves[index]), noPadding: true)
                    halves[index] = Data(encrypted.suffix(16))
                    left -= blocks
                }
            }
        } catch {
            throw KDBXFailure("could not be opened: AES-KDF failed")
        }
        var joined = halves[0] + halves[1]
        defer { wipe(&joined) }
        return SecureBuffer(copying: Array(SHA256.hash(data: joined)))
    }
}
