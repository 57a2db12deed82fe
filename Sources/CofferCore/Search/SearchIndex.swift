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
/// The index is stored as chunks of up to `entriesPerChunk` entries in the order rows are read,
/// one table row and one envelope each: reading a sealed chunk and its plaintext side by side
/// costs ~1 MB at a time, not twice the ~20 MB of a 100,000-item index (`search`'s peak memory).
/// A `SearchIndex` is one chunk.
///
/// Plaintext: `CSI1`, the entry count (UInt32), then per entry the fingerprint (UInt64), the id's
/// length (UInt16), the id, the text's length (UInt32) and the text, then `ByteSearch.overread`
/// zero bytes (what the byte search may read past the last text); little-endian. The index is
/// kept in memory in this same layout, so opening it and sealing it copy nothing (at 100,000
/// items it is ~25 MB, and `search`'s peak memory counts every copy).
struct SearchIndex {
    struct Entry {
        var fingerprint: UInt64
        /// Where the id's UTF-8 and the text lie in `bytes`.
        var idStart: Int
        var idLength: Int
        var textStart: Int
        var textLength: Int
    }

    /// CSI2: the text holds a kind's shown fields and custom fields' labels and shown values (issue 30).
    private static let magic = Array("CSI2".utf8)
    private static let header = magic.count + 4
    static let collection = "search-index"
    static let entriesPerChunk = 4096
    /// Chunk numbers past this are no chunk of ours (4 billion items): they are ignored.
    static let maximumChunks = 1 << 20

    /// The id chunk `number` is sealed under (bound to its ciphertext).
    static func sealedID(_ number: Int) -> String { "chunk-\(number)" }

    /// The plaintext, padding included.
    private(set) var bytes: Data
    /// In the order the rows were read when it was written: the next search reads them in the
    /// same order, so a row's entry is usually the one after the last row's.
    private(set) var entries: [Entry]

    init() {
        bytes = Data(Self.magic)
        bytes.append(contentsOf: [0, 0, 0, 0])
        bytes.append(Data(count: ByteSearch.overread))
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

    /// Each entry's id and position: looked up only when rows come in another order than the
    /// entries (items added or removed since the index was written).
    func forEachID(_ body: (String, Int) -> Void) {
        bytes.withUnsafeBytes { buffer in
            for (position, entry) in entries.enumerated() {
                let id = UnsafeRawBufferPointer(rebasing: buffer[entry.idStart..<(entry.idStart + entry.idLength)])
                body(String(decoding: id, as: UTF8.self), position)
            }
        }
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

    /// Appends an entry for `id` whose text is `text`.
    mutating func append(_ id: String, fingerprint: UInt64, text: UnsafeRawBufferPointer) {
        var id = id
        id.withUTF8 { append(id: UnsafeRawBufferPointer($0), fingerprint: fingerprint, text: text) }
    }

    /// Appends a copy of `other`'s entry `position`.
    mutating func append(_ position: Int, of other: SearchIndex) {
        let entry = other.entries[position]
        other.bytes.withUnsafeBytes { buffer in
            append(id: UnsafeRawBufferPointer(rebasing: buffer[entry.idStart..<(entry.idStart + entry.idLength)]),
                   fingerprint: entry.fingerprint,
                   text: UnsafeRawBufferPointer(rebasing: buffer[entry.textStart..<(entry.textStart + entry.textLength)]))
        }
    }

    private mutating func append(id: UnsafeRawBufferPointer, fingerprint: UInt64, text: UnsafeRawBufferPointer) {
        bytes.removeLast(ByteSearch.overread)
        Self.append(fingerprint, to: &bytes)
        Self.append(UInt16(id.count), to: &bytes)
        let idStart = bytes.count
        bytes.append(contentsOf: id)
        Self.append(UInt32(text.count), to: &bytes)
        let textStart = bytes.count
        bytes.append(contentsOf: text)
        bytes.append(Data(count: ByteSearch.overread))
        entries.append(Entry(fingerprint: fingerprint, idStart: idStart, idLength: id.count,
                             textStart: textStart, textLength: text.count))
        withUnsafeBytes(of: UInt32(entries.count).littleEndian) { count in
            bytes.replaceSubrange(Self.magic.count..<Self.header, with: count)
        }
    }

    // MARK: Sealing

    /// The chunk sealed under `keys` as chunk `number`: what the vault stores.
    func sealed(number: Int, with keys: SearchIndexKeys) throws -> Data {
        try Envelope.seal(bytes, symmetricKey: keys.sealing, collection: Self.collection, id: Self.sealedID(number))
    }

    /// The chunk `sealed` holds; nil when it does not open with `keys` as chunk `number` (another
    /// vault key, or damaged) or does not parse: its rows are then opened and indexed again.
    static func open(_ sealed: Data, number: Int, with keys: SearchIndexKeys) -> SearchIndex? {
        guard let plaintext = try? Envelope.open(sealed, symmetricKey: keys.sealing, collection: collection,
                                                 id: sealedID(number)),
              let entries = parseEntries(plaintext) else { return nil }
        var index = SearchIndex()
        index.bytes = plaintext
        index.entries = entries
        return index
    }

    private static func parseEntries(_ bytes: Data) -> [Entry]? {
        bytes.withUnsafeBytes { buffer -> [Entry]? in
            guard buffer.count >= header + ByteSearch.overread,
                  buffer.prefix(magic.count).elementsEqual(magic),
                  buffer.suffix(ByteSearch.overread).allSatisfy({ $0 == 0 }) else { return nil }
            let end = buffer.count - ByteSearch.overread
            var offset = magic.count
            func read<Value: FixedWidthInteger>(_: Value.Type) -> Value? {
                let size = MemoryLayout<Value>.size
                guard end - offset >= size else { return nil }
                defer { offset += size }
                return Value(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Value.self))
            }
            guard let count = read(UInt32.self) else { return nil }
            var found: [Entry] = []
            // An entry takes at least 14 bytes: a count the bytes cannot hold reserves no more.
            found.reserveCapacity(min(Int(count), (end - offset) / 14))
            for _ in 0..<count {
                guard let fingerprint = read(UInt64.self), let idLength = read(UInt16.self),
                      end - offset >= Int(idLength) else { return nil }
                let idStart = offset
                offset += Int(idLength)
                guard let length = read(UInt32.self), end - offset >= Int(length) else { return nil }
                found.append(Entry(fingerprint: fingerprint, idStart: idStart, idLength: Int(idLength),
                                   textStart: offset, textLength: Int(length)))
                offset += Int(length)
            }
            return offset == end ? found : nil
        }
    }

    private static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout Data) {
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
