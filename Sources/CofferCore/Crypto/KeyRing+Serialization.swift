import Foundation

extension KeyRing {
    /// Generation 0 without retired keys (every personal vault before a device's removal): `"CKR1"
    /// | hashing key | count (u32 BE) | (id length u16 BE, id, key)…`, the bytes it always had.
    /// Otherwise `"CKR2" | generation (u32 BE) | hashing key | count | entries | retired count |
    /// entries`, an item's retired keys oldest first. A personal vault after a device's removal
    /// (`KeyRing+Succession.swift`): `"CKR3"`, CKR2's fields, then `vault key count (u32) | keys |
    /// commitment present (u8) | count (u32) | 16-byte digests, sorted`; a version before
    /// 2026-12-08 refuses it as malformed (every device must be upgraded first). In a locked buffer.
    public func serialized() -> SecureBuffer {
        let ids = offsets.keys.sorted()
        let retired = retiredOffsets.keys.sorted().flatMap { id in retiredOffsets[id]!.map { (id, $0) } }
        let succession = !previousVaultKeys.isEmpty || committed != nil
        let generational = generation > 0 || !retired.isEmpty || succession
        let digests = (committed ?? []).map(\.bytes).sorted { $0.lexicographicallyPrecedes($1) }
        func entrySize(_ id: String) -> Int { 2 + id.utf8.count + KeyRing.keyLength }
        let size = KeyRing.magic.count + (generational ? 4 : 0) + KeyRing.keyLength + 4 + ids.reduce(0) { $0 + entrySize($1) }
            + (generational ? 4 + retired.reduce(0) { $0 + entrySize($1.0) } : 0)
            + (succession ? 4 + previousVaultKeys.count * KeyRing.keyLength + 1 + 4 + digests.count * CommittedVersion.length : 0)
        let output = SecureBuffer(count: size)
        output.withUnsafeMutableBytes { out in
            var position = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                (out.baseAddress! + position).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                position += bytes.count
            }
            func putEntry(_ id: String, _ key: UnsafeRawBufferPointer) {
                let idBytes = Array(id.utf8)
                withUnsafeBytes(of: UInt16(idBytes.count).bigEndian, put)
                idBytes.withUnsafeBytes(put)
                put(key)
            }
            (succession ? KeyRing.successionMagic : generational ? KeyRing.generationalMagic : KeyRing.magic).withUnsafeBytes(put)
            if generational { withUnsafeBytes(of: generation.bigEndian, put) }
            hashingKey.withUnsafeBytes(put)
            withUnsafeBytes(of: UInt32(ids.count).bigEndian, put)
            for id in ids { slab.withKey(at: offsets[id]!) { putEntry(id, $0) } }
            if generational {
                withUnsafeBytes(of: UInt32(retired.count).bigEndian, put)
                for (id, offset) in retired { retiredSlab.withKey(at: offset) { putEntry(id, $0) } }
            }
            if succession {
                withUnsafeBytes(of: UInt32(previousVaultKeys.count).bigEndian, put)
                for key in previousVaultKeys { key.withUnsafeBytes(put) }
                [UInt8(committed == nil ? 0 : 1)].withUnsafeBytes(put)
                withUnsafeBytes(of: UInt32(digests.count).bigEndian, put)
                for digest in digests { digest.withUnsafeBytes(put) }
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
        func number() throws -> UInt32 { try take(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        /// An entry's id, checked as ASCII before a String is made of it, and its key.
        func entry() throws -> (String, UnsafeRawBufferPointer) {
            let lengthBytes = try take(2)
            let idBytes = try take(Int(UInt16(lengthBytes[0]) << 8 | UInt16(lengthBytes[1])))
            guard RecordID.isValid(utf8: idBytes) else { throw malformed }
            return (String(decoding: idBytes, as: UTF8.self), try take(keyLength))
        }
        let head = Array(try take(magic.count))
        guard head == magic || head == generationalMagic || head == successionMagic else { throw malformed }
        let generational = head != magic
        let generation = generational ? try number() : 0
        let hashingKey = SecureBuffer(copying: try take(keyLength))
        let count = Int(try number())
        guard count <= bytes.count / (2 + keyLength) else { throw malformed }
        let ring = KeyRing(hashingKey: hashingKey, generation: generation, capacity: count)
        for _ in 0..<count {
            let (id, key) = try entry()
            // One lookup: the capacity was sized for `count` keys, so nothing moves.
            guard ring.offsets.updateValue(ring.slab.used, forKey: id) == nil else { throw malformed }
            _ = ring.slab.append(key)
        }
        if generational {
            let retired = Int(try number())
            guard retired <= bytes.count / (2 + keyLength) else { throw malformed }
            for _ in 0..<retired {
                let (id, key) = try entry()
                guard ring.retire(key, for: id) else { throw malformed }
            }
        }
        if head == successionMagic {
            let keys = Int(try number())
            guard keys <= bytes.count / keyLength else { throw malformed }
            for _ in 0..<keys { ring.previousVaultKeys.append(SecureBuffer(copying: try take(keyLength))) }
            let present = try take(1)[0]
            guard present <= 1 else { throw malformed }
            let digests = Int(try number())
            guard digests <= bytes.count / CommittedVersion.length, present == 1 || digests == 0 else { throw malformed }
            var committed = Set<CommittedVersion>(minimumCapacity: digests)
            for _ in 0..<digests { committed.insert(CommittedVersion(bytes: try take(CommittedVersion.length))) }
            if present == 1 { ring.committed = committed }
        }
        guard position == bytes.count else { throw malformed }
        return ring
    }
}
