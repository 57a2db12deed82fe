import Foundation

/// Substring search in raw bytes, sixteen positions at a time: a position can start the needle
/// only if two of the needle's bytes (its rarest, by English letter frequency) are where the
/// needle would put them, which two vector compares test at once; only those positions are
/// compared in full.
///
/// memchr on the first byte, then memcmp, spent most of a keystroke on frequent first letters:
/// "ne" over 100,000 rows is an "n" found and rejected a dozen times per row. The first and last
/// bytes as anchors were still slow for "needle": "n" and "e" five bytes apart is common text.
public enum ByteSearch {
    /// Bytes past `count` the search may read (never use): `SearchTexts` pads its buffer with them.
    public static let overread = 16

    /// A word to look for, with the two positions its search anchors on, chosen once per search.
    public struct Needle: Sendable {
        public let bytes: [UInt8]
        let anchors: (Int, Int)

        public init(_ bytes: [UInt8]) {
            self.bytes = bytes
            // The rarest byte's position, then the rarest of the others, the farthest from it on a
            // tie ("nee": "n" and the last "e", since "ne" is common); one byte: that byte twice.
            let first = bytes.indices.max { ByteSearch.rarity(bytes[$0]) < ByteSearch.rarity(bytes[$1]) } ?? 0
            let second = bytes.indices.filter { $0 != first }.max {
                (ByteSearch.rarity(bytes[$0]), abs($0 - first)) < (ByteSearch.rarity(bytes[$1]), abs($1 - first))
            } ?? first
            anchors = (first, second)
        }
    }

    /// Whether `needle` occurs in the `count` bytes at `haystack`, which must be followed by
    /// `overread` readable bytes.
    public static func contains(_ haystack: UnsafeRawPointer, count: Int, _ needle: Needle) -> Bool {
        firstOffset(of: needle, in: haystack, count: count) != nil
    }

    /// Where `needle` first occurs in the `count` bytes at `haystack` (0 for an empty needle), which
    /// must be followed by `overread` readable bytes.
    public static func firstOffset(of needle: Needle, in haystack: UnsafeRawPointer, count: Int) -> Int? {
        needle.bytes.withUnsafeBytes { bytes in
            guard let needleBase = bytes.baseAddress, bytes.count > 0 else { return 0 }
            guard count >= bytes.count else { return nil }
            if bytes.count == 1 { return memchr(haystack, Int32(bytes[0]), count).map { UnsafeRawPointer($0) - haystack } }
            let (a, b) = needle.anchors
            let atA = SIMD16<UInt8>(repeating: bytes[a])
            let atB = SIMD16<UInt8>(repeating: bytes[b])
            let lastStart = count - bytes.count
            var offset = 0
            while offset <= lastStart {
                // Four vectors skipped at once when none holds a candidate: a long haystack (a
                // whole index of 100,000 items) is mostly misses.
                if offset + 63 <= lastStart {
                    var isAnyCandidate = false
                    for block in stride(from: offset, to: offset + 64, by: 16) {
                        let bytesA = haystack.loadUnaligned(fromByteOffset: block + a, as: SIMD16<UInt8>.self)
                        let bytesB = haystack.loadUnaligned(fromByteOffset: block + b, as: SIMD16<UInt8>.self)
                        if any((bytesA .== atA) .& (bytesB .== atB)) { isAnyCandidate = true }
                    }
                    if !isAnyCandidate {
                        offset += 64
                        continue
                    }
                }
                let bytesA = haystack.loadUnaligned(fromByteOffset: offset + a, as: SIMD16<UInt8>.self)
                let bytesB = haystack.loadUnaligned(fromByteOffset: offset + b, as: SIMD16<UInt8>.self)
                let candidates = (bytesA .== atA) .& (bytesB .== atB)
                if any(candidates) {
                    for lane in 0..<min(16, lastStart - offset + 1) where candidates[lane] {
                        if memcmp(haystack + offset + lane, needleBase, bytes.count) == 0 { return offset + lane }
                    }
                }
                offset += 16
            }
            return nil
        }
    }

    /// Letters by how often they occur in English text, most frequent first.
    private static let letters = Array("etaoinsrhldcumfpgwybvkxjqz".utf8)

    /// How rare `byte` is in folded item text (titles, usernames, notes, addresses): higher is rarer.
    static func rarity(_ byte: UInt8) -> Int {
        switch byte {
        case 0, UInt8(ascii: " "): return 0
        case UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "-"): return 4
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return 12
        default: return letters.firstIndex(of: byte).map { $0 + 1 } ?? 30
        }
    }
}
