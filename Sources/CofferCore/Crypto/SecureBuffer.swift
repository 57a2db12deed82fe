import CSodium
import Foundation

/// Bytes in libsodium's guarded, locked memory, zeroed when freed.
///
/// Key material lives only here (and briefly inside swift-crypto's own zeroing key type).
/// `SecureBuffer` is a class so a key has exactly one owner: dropping the last reference wipes it.
public final class SecureBuffer: @unchecked Sendable {
    private let pointer: UnsafeMutableRawPointer
    public let count: Int

    /// A zero-filled buffer of `count` bytes.
    public init(count: Int) {
        Sodium.initialize()
        // sodium_malloc(0) is legal but returns a pointer we must not touch; keep at least one byte.
        guard let memory = sodium_malloc(max(count, 1)) else {
            // Out of memory for a key buffer: nothing sensible can continue.
            preconditionFailure("sodium_malloc failed for \(count) bytes")
        }
        pointer = memory
        self.count = count
        sodium_memzero(pointer, max(count, 1))
    }

    /// A buffer holding a copy of `bytes`.
    public convenience init<Bytes: ContiguousBytes>(copying bytes: Bytes) {
        let size = bytes.withUnsafeBytes { $0.count }
        self.init(count: size)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress, size > 0 { pointer.copyMemory(from: base, byteCount: size) }
        }
    }

    /// `count` random bytes from the system CSPRNG.
    public static func random(count: Int) -> SecureBuffer {
        let buffer = SecureBuffer(count: count)
        randombytes_buf(buffer.pointer, count)
        return buffer
    }

    deinit { sodium_free(pointer) }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    public func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Overwrites the contents with zeros now (the free in `deinit` does it again).
    public func wipe() { sodium_memzero(pointer, max(count, 1)) }

    /// Constant-time comparison.
    public func isEqual(to other: SecureBuffer) -> Bool {
        count == other.count && sodium_memcmp(pointer, other.pointer, count) == 0
    }

    /// Whether every byte is zero (used by tests to prove a wipe happened).
    public var isZero: Bool { sodium_is_zero(pointer.assumingMemoryBound(to: UInt8.self), count) == 1 }
}

/// Zeroes a `Data` or byte array that briefly held a secret.
public func wipe(_ data: inout Data) {
    data.withUnsafeMutableBytes { bytes in
        if let base = bytes.baseAddress { sodium_memzero(base, bytes.count) }
    }
}

public func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { raw in
        if let base = raw.baseAddress { sodium_memzero(base, raw.count) }
    }
}

enum Sodium {
    private static let once: Void = {
        // sodium_init returns 1 when already initialised and -1 only if the CSPRNG is unusable.
        if sodium_init() < 0 { preconditionFailure("libsodium could not initialise its random generator") }
    }()

    static func initialize() { _ = once }
}
