import CSodium
import Crypto
import Foundation

/// The vault's sealed search index: for each readable item, its searchable text folded
/// (`ItemMatcher.appendSearchText`) and the fingerprint of the row that text came from. `coffer
/// search` opens only the rows whose indexed text holds every word, or whose row changed since
/// it was indexed, instead of every envelope in the vault.
///
/// It is a cache, never the truth: written by whichever search found it out of date, read by the
/// next, checked row by row against the vault. An index that is missing, old (another process
/// changed items since), from another vault key or damaged costs opening the rows it does not
/// cover, never a wrong answer: a row whose fingerprint differs is opened and authenticated as
/// before. It never syncs, and it is sealed like an item (AES-256-GCM under a key derived from
/// the vault key), so the folded text of titles and notes is never on disk in the clear.
///
/// Plaintext: `CSI1`, the entry count (UInt32), then per entry the fingerprint (UInt64), the id's
/// length (UInt16), the id, the text's length (UInt32) and the text; little-endian.
struct SearchIndex {
    struct Entry {
        var fingerprint: UInt64
        /// Where the id's UTF-8 and the text lie in `bytes`.
        var idStart: Int
        var idLength: Int
        var textStart: Int
        var textLength: Int
    }

    private static let magic = Array("CSI1".utf8)
    static let collection = "search-index"
    static let sealedID = "local"

    /// The entries' ids and texts (and, once opened, the rest of the plaintext), then
    /// `ByteSearch.overread` bytes of padding.
    private(set) var bytes: [UInt8]
    /// In the order the rows were read when it was written: the next search reads them in the
    /// same order, so a row's entry is usually the one after the last row's.
    private(set) var entries: [Entry]

    init() {
        bytes = [UInt8](repeating: 0, count: ByteSearch.overread)
        entries = []
    }

    var count: Int { entries.count }

    /// Whether entry `position` is the entry of `id`.
    func entry(_ position: Int, isFor id: String) -> Bool {
        let entry = entries[position]
        var id = id
        return id.withUTF8 { wanted in
            wanted.count == entry.idLength && bytes.withUnsafeBytes { buffer in
                wanted.isEmpty || memcmp(buffer.baseAddress! + entry.idStart, wanted.baseAddress!, wanted.count) == 0
            }
        }
    }

    /// Every entry's position by id: looked up only when rows come in another order than the
    /// entries (items added or removed since the index was written).
    func positionsByID() -> [String: Int] {
        var positions = [String: Int](minimumCapacity: entries.count)
        for (position, entry) in entries.enumerated() {
            positions[String(decoding: bytes[entry.idStart..<(entry.idStart + entry.idLength)], as: UTF8.self)] = position
        }
        return positions
    }

    /// Whether the text of entry `position` holds every needle.
    func text(of position: Int, holdsEvery needles: [ByteSearch.Needle]) -> Bool {
        let entry = entries[position]
        return bytes.withUnsafeBytes { buffer in
            let start = buffer.baseAddress! + entry.textStart
            return needles.allSatisfy { ByteSearch.contains(start, count: entry.textLength, $0) }
        }
    }

    // MARK: Building

    /// Appends an entry for `id`; `fill` appends its text.
    mutating func append(_ id: String, fingerprint: UInt64, _ fill: (inout [UInt8]) -> Void) {
        bytes.removeLast(ByteSearch.overread)
        let idStart = bytes.count
        bytes.append(contentsOf: id.utf8)
        let textStart = bytes.count
        fill(&bytes)
        entries.append(Entry(fingerprint: fingerprint, idStart: idStart, idLength: textStart - idStart,
                             textStart: textStart, textLength: bytes.count - textStart))
        bytes.append(contentsOf: repeatElement(0, count: ByteSearch.overread))
    }

    /// Appends a copy of `other`'s entry `position`.
    mutating func append(_ position: Int, of other: SearchIndex) {
        let entry = other.entries[position]
        bytes.removeLast(ByteSearch.overread)
        let idStart = bytes.count
        bytes.append(contentsOf: other.bytes[entry.idStart..<(entry.idStart + entry.idLength)])
        let textStart = bytes.count
        bytes.append(contentsOf: other.bytes[entry.textStart..<(entry.textStart + entry.textLength)])
        entries.append(Entry(fingerprint: entry.fingerprint, idStart: idStart, idLength: entry.idLength,
                             textStart: textStart, textLength: entry.textLength))
        bytes.append(contentsOf: repeatElement(0, count: ByteSearch.overread))
    }

    mutating func reserveCapacity(entries count: Int, bytes size: Int) {
        entries.reserveCapacity(count)
        bytes.reserveCapacity(size + ByteSearch.overread)
    }

    // MARK: Sealing

    /// The index sealed under `keys`: what the vault stores.
    func sealed(with keys: SearchIndexKeys) throws -> Data {
        var plaintext = [UInt8]()
        plaintext.reserveCapacity(bytes.count + entries.count * 14 + 8)
        plaintext.append(contentsOf: Self.magic)
        Self.append(UInt32(entries.count), to: &plaintext)
        bytes.withUnsafeBufferPointer { source in
            for entry in entries {
                Self.append(entry.fingerprint, to: &plaintext)
                Self.append(UInt16(entry.idLength), to: &plaintext)
                plaintext.append(contentsOf: source[entry.idStart..<(entry.idStart + entry.idLength)])
                Self.append(UInt32(entry.textLength), to: &plaintext)
                plaintext.append(contentsOf: source[entry.textStart..<(entry.textStart + entry.textLength)])
            }
        }
        defer { sodium_memzero(&plaintext, plaintext.count) }
        return try Envelope.seal(plaintext, symmetricKey: keys.sealing, collection: Self.collection, id: Self.sealedID)
    }

    /// The index `sealed` holds; nil when it does not open with `keys` (another vault key, or
    /// damaged) or does not parse: the caller then builds a new one.
    static func open(_ sealed: Data, with keys: SearchIndexKeys) -> SearchIndex? {
        guard let plaintext = try? Envelope.open(sealed, symmetricKey: keys.sealing, collection: collection, id: sealedID)
        else { return nil }
        var index = SearchIndex()
        // One copy, padding included (the index of 100,000 items is ~15 MB).
        index.bytes = [UInt8](unsafeUninitializedCapacity: plaintext.count + ByteSearch.overread) { buffer, initialized in
            let copied = plaintext.copyBytes(to: buffer)
            buffer.baseAddress!.advanced(by: copied).initialize(repeating: 0, count: ByteSearch.overread)
            initialized = copied + ByteSearch.overread
        }
        guard index.parseEntries() else { return nil }
        return index
    }

    private mutating func parseEntries() -> Bool {
        let end = bytes.count - ByteSearch.overread
        var offset = Self.magic.count
        guard end >= offset + 4, Array(bytes[0..<offset]) == Self.magic else { return false }
        func read<Value: FixedWidthInteger>(_: Value.Type) -> Value? {
            let size = MemoryLayout<Value>.size
            guard end - offset >= size else { return nil }
            defer { offset += size }
            return bytes.withUnsafeBytes { Value(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Value.self)) }
        }
        guard let count = read(UInt32.self) else { return false }
        var found: [Entry] = []
        // An entry takes at least 14 bytes: a count the bytes cannot hold reserves no more.
        found.reserveCapacity(min(Int(count), (end - offset) / 14))
        for _ in 0..<count {
            guard let fingerprint = read(UInt64.self), let idLength = read(UInt16.self),
                  end - offset >= Int(idLength) else { return false }
            let idStart = offset
            offset += Int(idLength)
            guard let length = read(UInt32.self), end - offset >= Int(length) else { return false }
            found.append(Entry(fingerprint: fingerprint, idStart: idStart, idLength: Int(idLength),
                               textStart: offset, textLength: Int(length)))
            offset += Int(length)
        }
        guard offset == end else { return false }
        entries = found
        return true
    }

    private static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

/// The two keys of the search index, derived from the vault key (HKDF-SHA-256): one seals it,
/// one keys the rows' fingerprints, so that without the vault key nobody can make another row
/// with the fingerprint of an indexed one.
struct SearchIndexKeys {
    let sealing: SymmetricKey
    private let fingerprinting: SecureBuffer

    init(vaultKey: SecureBuffer) {
        let input = vaultKey.withUnsafeBytes { SymmetricKey(data: $0) }
        sealing = HKDF<SHA256>.deriveKey(inputKeyMaterial: input, info: Data("coffer/search-index/v1/seal".utf8),
                                         outputByteCount: 32)
        let fingerprintKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: input,
                                                    info: Data("coffer/search-index/v1/fingerprint".utf8),
                                                    outputByteCount: Int(crypto_shorthash_KEYBYTES))
        fingerprinting = fingerprintKey.withUnsafeBytes { SecureBuffer(copying: $0) }
    }

    /// SipHash-2-4 of `bytes` under the fingerprint key (libsodium's `crypto_shorthash`).
    func fingerprint(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var out: UInt64 = 0
        fingerprinting.withUnsafeBytes { key in
            withUnsafeMutableBytes(of: &out) { result in
                _ = crypto_shorthash(result.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                     bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count),
                                     key.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return out
    }
}
