import CSodium
import Crypto
import Foundation

/// The keystore's plaintext: the hashing key and one 256-bit key per item, all in locked memory.
///
/// A shared vault's ring also has a **generation** (the roster epoch whose revocation made it,
/// architecture §17) and **retired keys**: the item keys of earlier generations, kept only to
/// open what was sealed before (an item not sealed again yet, a file, a review). Nothing is ever
/// sealed with a retired key. A personal vault's ring is generation 0 with none.
public final class KeyRing: @unchecked Sendable {
    public static let keyLength = KeySlab.keyLength
    static let magic = Array("CKR1".utf8)
    static let generationalMagic = Array("CKR2".utf8)
    static let successionMagic = Array("CKR3".utf8)

    var slab: KeySlab
    var offsets: [String: Int]
    var retiredSlab = KeySlab(capacity: 1)
    var retiredOffsets: [String: [Int]] = [:]
    /// A personal vault's earlier vault keys, oldest first, and its commitment
    /// (`KeyRing+Succession.swift`); none in a shared vault's ring or before a device's removal.
    public internal(set) var previousVaultKeys: [SecureBuffer] = []
    public internal(set) var committed: Set<CommittedVersion>?

    public private(set) var hashingKey: SecureBuffer
    public private(set) var generation: UInt32

    /// A new key ring with a random hashing key and no item keys.
    public convenience init() {
        self.init(hashingKey: .random(count: KeyRing.keyLength))
    }

    package init(hashingKey: SecureBuffer, generation: UInt32 = 0, capacity: Int = 16) {
        self.hashingKey = hashingKey
        self.generation = generation
        slab = KeySlab(capacity: capacity)
        // Sized once: a keystore of 100,000 keys grew it seventeen times while being parsed.
        offsets = Dictionary(minimumCapacity: capacity)
    }

    public var count: Int { offsets.count }
    public var itemIDs: Dictionary<String, Int>.Keys { offsets.keys }
    /// How many retired keys the ring keeps (several items may have more than one).
    public var retiredCount: Int { retiredOffsets.values.reduce(0) { $0 + $1.count } }

    public func contains(_ id: String) -> Bool { offsets[id] != nil }

    /// Runs `body` on the key for `id` where it lies, without copying it; nil if there is none.
    ///
    /// The per-item path (every item opened or sealed) uses this: a `SecureBuffer` per item would
    /// cost an mmap, mprotect and mlock each, which dominated opening 10,000 items.
    public func withKey<Result>(for id: String, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        guard let offset = offsets[id] else { return nil }
        return try slab.withKey(at: offset, body)
    }

    /// The key for `id`, copied into its own locked buffer.
    public func key(for id: String) -> SecureBuffer? {
        withKey(for: id) { SecureBuffer(copying: $0) }
    }

    public func hasRetiredKeys(for id: String) -> Bool { retiredOffsets[id] != nil }

    /// Whether the ring holds any key, current or retired, that may open what `id`'s key sealed.
    public func mayOpen(_ id: String, allowingRetired: Bool = true) -> Bool {
        contains(id) || (allowingRetired && hasRetiredKeys(for: id))
    }

    /// The keys `id` had in earlier generations, newest first: for opening only.
    public func retiredKeys(for id: String) -> [SymmetricKey] {
        (retiredOffsets[id] ?? []).reversed().map { retiredSlab.withKey(at: $0) { SymmetricKey(data: $0) } }
    }

    /// Adds a fresh random key for `id` unless it has one; returns whether the ring changed.
    @discardableResult
    public func addKey(for id: String) -> Bool {
        guard offsets[id] == nil else { return false }
        SecureBuffer.random(count: KeyRing.keyLength).withUnsafeBytes { offsets[id] = slab.append($0) }
        return true
    }

    /// Adds every key of `other`, of the same generation, that this ring lacks (the keystore
    /// conflict rule: union of keys), retired ones too. Two rings opened with one vault key are
    /// of one generation: a new generation always comes with a new vault key.
    @discardableResult
    public func formUnion(with other: KeyRing) -> Bool {
        guard other.generation == generation else { return other.generation < generation && absorb(older: other) }
        let succession = (previousVaultKeys.count, committed == nil)
        takeSuccession(of: other, commitment: true)
        var changed = succession != (previousVaultKeys.count, committed == nil)
        for id in other.offsets.keys where offsets[id] == nil {
            other.withKey(for: id) { offsets[id] = slab.append($0) }
            changed = true
        }
        return other.forEachRetired { id, key in retire(key, for: id) } || changed
    }

    /// Takes in a ring of an earlier generation: its keys are retired here, and an item it has a
    /// key for and this ring has not (made on a device that had not seen the new generation) gets
    /// a fresh one, so it is sealed again under this generation.
    @discardableResult
    public func absorb(older other: KeyRing) -> Bool {
        let known = previousVaultKeys.count
        takeSuccession(of: other, commitment: false)
        var changed = previousVaultKeys.count != known
        for id in other.offsets.keys {
            if addKey(for: id) { changed = true }
            if other.withKey(for: id, { retire($0, for: id) }) == true { changed = true }
        }
        return other.forEachRetired { id, key in retire(key, for: id) } || changed
    }

    /// The next generation's ring: a fresh key for every item, this ring's keys all retired, and
    /// a fresh hashing key unless `keepingHashingKey` (a personal vault's new keys at a device's
    /// removal keep it: its items' synced search hashes stay findable, and the removed device
    /// learns nothing from them it could not read). What someone removed held opens nothing sealed with it.
    public func rekeyed(generation next: UInt32, keepingHashingKey: Bool = false) -> KeyRing {
        let hashing = keepingHashingKey ? hashingKey.withUnsafeBytes { SecureBuffer(copying: $0) } : .random(count: KeyRing.keyLength)
        let ring = KeyRing(hashingKey: hashing, generation: next, capacity: count)
        for id in offsets.keys { ring.addKey(for: id) }
        ring.absorb(older: self)
        return ring
    }

    /// Becomes `newer`, of a later generation, with this ring's keys retired (`absorb`). In
    /// place: an unlocked session's ring is held by reference across a sync.
    func adopt(newer: KeyRing) {
        let old = KeyRing(hashingKey: hashingKey, generation: generation)
        (old.slab, old.offsets, old.retiredSlab, old.retiredOffsets) = (slab, offsets, retiredSlab, retiredOffsets)
        old.previousVaultKeys = previousVaultKeys
        (hashingKey, generation) = (newer.hashingKey, newer.generation)
        (slab, offsets, retiredSlab, retiredOffsets) = (newer.slab, newer.offsets, newer.retiredSlab, newer.retiredOffsets)
        (previousVaultKeys, committed) = (newer.previousVaultKeys, newer.committed)
        absorb(older: old)
    }

    /// Keeps `key` as one of `id`'s retired keys unless it is one already; returns whether it was added.
    @discardableResult
    func retire(_ key: UnsafeRawBufferPointer, for id: String) -> Bool {
        let known = retiredOffsets[id] ?? []
        if known.contains(where: { retiredSlab.withKey(at: $0) { sodium_memcmp($0.baseAddress!, key.baseAddress!, KeyRing.keyLength) == 0 } }) {
            return false
        }
        retiredOffsets[id, default: []].append(retiredSlab.append(key))
        return true
    }

    /// Calls `body` with each retired key; returns whether any call returned true.
    func forEachRetired(_ body: (String, UnsafeRawBufferPointer) -> Bool) -> Bool {
        var any = false
        for (id, positions) in retiredOffsets {
            for offset in positions where retiredSlab.withKey(at: offset, { body(id, $0) }) { any = true }
        }
        return any
    }

    /// Wipes every key now (locking also drops the ring, whose buffers wipe themselves when freed).
    public func wipe() {
        slab.wipe()
        retiredSlab.wipe()
        hashingKey.wipe()
        for key in previousVaultKeys { key.wipe() }
    }
}
