import CSodium
import Foundation

/// Argon2id key-derivation parameters, stored in the clear with the keystore (a new device needs them).
public struct KDFParameters: Codable, Sendable, Equatable {
    public var algorithm: String
    /// Memory in bytes.
    public var memory: Int
    public var iterations: Int
    /// 16 random bytes, base64.
    public var salt: String

    public static let argon2id = "argon2id13"
    /// The floor of architecture §2: a vault or record asking for less is refused as a downgrade.
    public static let minimumMemory = 64 * 1_048_576
    public static let minimumIterations = 3

    public init(algorithm: String = KDFParameters.argon2id, memory: Int, iterations: Int, salt: String) {
        self.algorithm = algorithm
        self.memory = memory
        self.iterations = iterations
        self.salt = salt
    }

    /// Fresh parameters with a new random salt.
    public static func fresh(memory: Int, iterations: Int) -> KDFParameters {
        let salt = SecureBuffer.random(count: Argon2id.saltLength).withUnsafeBytes { Data($0) }
        return KDFParameters(memory: memory, iterations: iterations, salt: salt.base64EncodedString())
    }

    /// Throws unless these are Argon2id parameters at or above the floor with a well-formed salt.
    public func checkStrength() throws {
        guard algorithm == KDFParameters.argon2id,
              let saltBytes = Data(base64Encoded: salt), saltBytes.count == Argon2id.saltLength
        else { throw CoreError.tampered(what: "the key-derivation parameters are malformed") }
        guard memory >= KDFParameters.minimumMemory, iterations >= KDFParameters.minimumIterations else {
            throw CoreError.kdfDowngrade(memoryBytes: memory, iterations: iterations)
        }
        guard memory <= 4 * 1_073_741_824, iterations <= 1000 else {
            throw CoreError.tampered(what: "the key-derivation parameters are implausibly large")
        }
    }
}

/// Argon2id through libsodium (`crypto_pwhash`, parallelism 1).
public enum Argon2id {
    public static let saltLength = Int(crypto_pwhash_SALTBYTES)

    /// Derives `length` bytes from `passphrase`. Does not enforce the vault floor (test vectors use less).
    public static func derive(passphrase: SecureBuffer, salt: Data, memory: Int, iterations: Int,
                              length: Int = 32) throws -> SecureBuffer {
        Sodium.initialize()
        guard salt.count == saltLength else { throw CoreError.tampered(what: "the key-derivation salt has the wrong length") }
        let output = SecureBuffer(count: length)
        let status = output.withUnsafeMutableBytes { out in
            passphrase.withUnsafeBytes { pass in
                salt.withUnsafeBytes { saltBytes in
                    crypto_pwhash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(length),
                                  pass.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(pass.count),
                                  saltBytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                  UInt64(iterations), memory, crypto_pwhash_ALG_ARGON2ID13)
                }
            }
        }
        guard status == 0 else { throw CoreError.storage(reason: "Argon2id could not allocate \(memory / 1_048_576) MiB") }
        return output
    }

    /// Parameters that take about `target` seconds here, never below the floor.
    ///
    /// Memory grows first (it is what makes guessing expensive on GPUs), up to 1 GiB, then iterations.
    public static func calibrate(target: Double = 0.5) -> KDFParameters {
        let probe = SecureBuffer(copying: Array("calibration".utf8))
        let salt = Data(repeating: 7, count: saltLength)
        func seconds(memory: Int, iterations: Int) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try? derive(passphrase: probe, salt: salt, memory: memory, iterations: iterations)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        var memory = KDFParameters.minimumMemory
        var iterations = KDFParameters.minimumIterations
        var elapsed = seconds(memory: memory, iterations: iterations)
        while elapsed * 2 <= target, memory < 1_073_741_824 {
            memory *= 2
            elapsed = seconds(memory: memory, iterations: iterations)
        }
        if elapsed < target * 0.8 {
            iterations = max(iterations, Int((Double(iterations) * target / max(elapsed, 0.001)).rounded()))
        }
        return .fresh(memory: memory, iterations: iterations)
    }
}
