import CofferCore
import Foundation

/// The real Argon2id, run once per distinct input and remembered: bound as
/// `PassphraseKeys.stretching` around one randomized history, whose three devices create, join
/// and unlock one vault with one passphrase and one salt again and again. Every stretch still
/// comes from libsodium's Argon2id with the vault's parameters; only repeats are served from here.
///
/// One memo per history: it holds root keys (in locked memory, like the product's keys), and
/// each history has its own salt anyway.
final class Argon2idMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var roots: [Data: SecureBuffer] = [:]

    func stretch(_ passphrase: SecureBuffer, _ salt: Data, _ memory: Int, _ iterations: Int) throws -> SecureBuffer {
        var key = passphrase.withUnsafeBytes { Data($0) }
        key.append(0)
        key.append(salt)
        key.append(contentsOf: "\(memory)/\(iterations)".utf8)
        if let known = lock.withLock({ roots[key] }) {
            return known.withUnsafeBytes { SecureBuffer(copying: $0) }
        }
        let root = try Argon2id.derive(passphrase: passphrase, salt: salt, memory: memory, iterations: iterations)
        lock.withLock { roots[key] = root.withUnsafeBytes { SecureBuffer(copying: $0) } }
        return root
    }
}
