import Foundation

/// 256-bit keys side by side in one locked buffer, appended and never moved once read: a guarded
/// allocation per key would cost three pages each, and an mmap, mprotect and mlock per item.
struct KeySlab {
    static let keyLength = 32

    private(set) var storage: SecureBuffer
    private(set) var used = 0

    init(capacity: Int) {
        storage = SecureBuffer(count: max(capacity, 1) * KeySlab.keyLength)
    }

    /// Appends a key (copied from `keyBytes`, which must hold `keyLength` bytes); returns its offset.
    mutating func append(_ keyBytes: UnsafeRawBufferPointer) -> Int {
        if used + KeySlab.keyLength > storage.count {
            let larger = SecureBuffer(count: storage.count * 2)
            larger.withUnsafeMutableBytes { target in
                storage.withUnsafeBytes { source in
                    target.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: used)
                }
            }
            storage = larger
        }
        storage.withUnsafeMutableBytes { target in
            (target.baseAddress! + used).copyMemory(from: keyBytes.baseAddress!, byteCount: KeySlab.keyLength)
        }
        defer { used += KeySlab.keyLength }
        return used
    }

    /// Runs `body` on the key at `offset` where it lies, without copying it.
    func withKey<Result>(at offset: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + KeySlab.keyLength)])) }
    }

    func wipe() { storage.wipe() }
}
