import Foundation

/// The keystore's plaintext: the hashing key and one 256-bit key per item, all in locked memory.
///
/// Keys sit side by side in one `SecureBuffer` (a guarded allocation per key would cost three
/// pages each); `offsets` maps an item id to its key's position.
public final class KeyRing: @unchecked Sendable {
    public static let keyLength = 32
    private static let magic = Array("CKR1".utf8)

    private var storage: SecureBuffer
    private var offsets: [String: Int]
    private var used: Int

    public let hashingKey: SecureBuffer

    /// A new key ring with a random hashing key and no item keys.
    public convenience init() {
        self.init(hashingKey: .random(count: KeyRing.keyLength))
    }

    package init(hashingKey: SecureBuffer, capacity: Int = 16) {
        self.hashingKey = hashingKey
        storage = SecureBuffer(count: max(capacity, 1) * KeyRing.keyLength)
        // Sized once: a keystore of 100,000 keys grew it seventeen times while being parsed.
        offsets = Dictionary(minimumCapacity: capacity)
        used = 0
    }

    public var count: Int { offsets.count }
    public var itemIDs: Dictionary<String, Int>.Keys { offsets.keys }

    public func contains(_ id: String) -> Bool { offsets[id] != nil }

    /// Runs `body` on the key for `id` where it lies, without copying it; nil if there is none.
    ///
    /// The per-item path (every item opened or sealed) uses this: a `SecureBuffer` per item would
    /// cost an mmap, mprotect and mlock each, which dominated opening 10,000 items.
    public func withKey<Result>(for id: String, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        guard let offset = offsets[id] else { return nil }
        return try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + KeyRing.keyLength)])) }
    }

    /// The key for `id`, copied into its own locked buffer.
    public func key(for id: String) -> SecureBuffer? {
        guard let offset = offsets[id] else { return nil }
        return storage.withUnsafeBytes { SecureBuffer(copying: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + KeyRing.keyLength)])) }
    }

    /// Adds a fresh random key for `id` unless it has one; returns whether the ring changed.
    @discardableResult
    public func addKey(for id: String) -> Bool {
        guard offsets[id] == nil else { return false }
        insert(id: id, key: .random(count: KeyRing.keyLength))
        return true
    }

    /// Adds every key of `other` that this ring lacks (the keystore conflict rule: union of keys).
    @discardableResult
    public func formUnion(with other: KeyRing) -> Bool {
        var changed = false
        for id in other.offsets.keys where offsets[id] == nil {
            other.withKey(for: id) { insert(id: id, keyBytes: $0) }
            changed = true
        }
        return changed
    }

    private func insert(id: String, key: SecureBuffer) {
        key.withUnsafeBytes { insert(id: id, keyBytes: $0) }
    }

    /// Appends a key (copied from `keyBytes`, which must hold `keyLength` bytes) for `id`.
    private func insert(id: String, keyBytes: UnsafeRawBufferPointer) {
        if used + KeyRing.keyLength > storage.count {
            let larger = SecureBuffer(count: storage.count * 2)
            larger.withUnsafeMutableBytes { target in
                storage.withUnsafeBytes { source in
                    target.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: used)
                }
            }
            storage = larger
        }
        storage.withUnsafeMutableBytes { target in
            (target.baseAddress! + used).copyMemory(from: keyBytes.baseAddress!, byteCount: KeyRing.keyLength)
        }
        offsets[id] = used
        used += KeyRing.keyLength
    }

    /// Wipes every key now (locking also drops the ring, whose buffers wipe themselves when freed).
    public func wipe() {
        storage.wipe()
        hashingKey.wipe()
    }

    // MARK: - Serialization

    /// `"CKR1" | hashing key | count (u32 BE) | (id length u16 BE, id, key)…`, in a locked buffer.
    public func serialized() -> SecureBuffer {
        let ids = offsets.keys.sorted()
        let size = KeyRing.magic.count + KeyRing.keyLength + 4
            + ids.reduce(0) { $0 + 2 + $1.utf8.count + KeyRing.keyLength }
        let output = SecureBuffer(count: size)
        output.withUnsafeMutableBytes { out in
            var position = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                (out.baseAddress! + position).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                position += bytes.count
            }
            KeyRing.magic.withUnsafeBytes(put)
            hashingKey.withUnsafeBytes(put)
            withUnsafeBytes(of: UInt32(ids.count).bigEndian, put)
            storage.withUnsafeBytes { keys in
                for id in ids {
                    let idBytes = Array(id.utf8)
                    withUnsafeBytes(of: UInt16(idBytes.count).bigEndian, put)
                    idBytes.withUnsafeBytes(put)
                    let offset = offsets[id]!
                    put(UnsafeRawBufferPointer(rebasing: keys[offset..<(offset + KeyRing.keyLength)]))
                }
            }
        }
        return output
    }

    /// Parses `serialized()` output; throws `tampered` for anything malformed.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> KeyRing {
        let malformed = CoreError.tampered(what: "the keystore's contents are malformed")
        var position = 0
        func take(_ length: Int) throws -> UnsafeRawBufferPointer {
            guard length >= 0, position + length <= bytes.count else { throw malformed }
            defer { position += length }
            return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + length)])
        }
        guard Array(try take(magic.count)) == magic else { throw malformed }
        let hashingKey = SecureBuffer(copying: try take(keyLength))
        let countBytes = try take(4)
        let count = Int(countBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard count <= bytes.count / (2 + keyLength) else { throw malformed }
        let ring = KeyRing(hashingKey: hashingKey, capacity: count)
        try ring.storage.withUnsafeMutableBytes { storage in
            for _ in 0..<count {
                let lengthBytes = try take(2)
                let idLength = Int(UInt16(lengthBytes[0]) << 8 | UInt16(lengthBytes[1]))
                // Valid ids are ASCII, so the bytes are checked before a String is made of them.
                let idBytes = try take(idLength)
                guard RecordID.isValid(utf8: idBytes) else { throw malformed }
                let key = try take(keyLength)
                // One lookup: the capacity was sized for `count` keys, so nothing moves.
                guard ring.offsets.updateValue(ring.used, forKey: String(decoding: idBytes, as: UTF8.self)) == nil else {
                    throw malformed
                }
                (storage.baseAddress! + ring.used).copyMemory(from: key.baseAddress!, byteCount: keyLength)
                ring.used += keyLength
            }
        }
        guard position == bytes.count else { throw malformed }
        return ring
    }
}
