import Foundation

/// Substring search in raw bytes, sixteen positions at a time: a position can start the needle
/// only if it holds the needle's first byte and the position `needle.count - 1` further holds
/// its last, which both vector compares test at once; only those positions are compared in full.
///
/// memchr on the first byte, then memcmp, spent most of a keystroke on frequent first letters:
/// "ne" over 100,000 rows is an "n" found and rejected a dozen times per row.
enum ByteSearch {
    /// Bytes past `count` the search may read (never use): `ListIndex` pads its buffer with them.
    static let overread = 16

    /// Whether `needle` occurs in the `count` bytes at `haystack`, which must be followed by
    /// `overread` readable bytes.
    static func contains(_ haystack: UnsafeRawPointer, count: Int, _ needle: UnsafeRawBufferPointer) -> Bool {
        guard let needleBase = needle.baseAddress, needle.count > 0 else { return true }
        guard count >= needle.count else { return false }
        if needle.count == 1 { return memchr(haystack, Int32(needle[0]), count) != nil }
        let first = SIMD16<UInt8>(repeating: needle[0])
        let last = SIMD16<UInt8>(repeating: needle[needle.count - 1])
        let lastStart = count - needle.count
        var offset = 0
        while offset <= lastStart {
            let starts = haystack.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
            let ends = haystack.loadUnaligned(fromByteOffset: offset + needle.count - 1, as: SIMD16<UInt8>.self)
            let candidates = (starts .== first) .& (ends .== last)
            if any(candidates) {
                for lane in 0..<min(16, lastStart - offset + 1) where candidates[lane] {
                    if memcmp(haystack + offset + lane + 1, needleBase + 1, needle.count - 2) == 0 { return true }
                }
            }
            offset += 16
        }
        return false
    }
}
