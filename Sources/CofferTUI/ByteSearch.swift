import Foundation

/// Substring search in raw bytes: `memchr` for the needle's first byte, `memcmp` for the rest.
/// (glibc's `memmem` is not visible to Swift without `_GNU_SOURCE`.)
enum ByteSearch {
    static func contains(_ haystack: UnsafeRawPointer, count: Int, _ needle: UnsafeRawBufferPointer) -> Bool {
        guard let needleBase = needle.baseAddress, needle.count > 0 else { return true }
        guard count >= needle.count else { return false }
        let first = Int32(needle[0])
        let last = haystack + (count - needle.count)
        var cursor = haystack
        while cursor <= last {
            guard let found = memchr(cursor, first, last - cursor + 1) else { return false }
            if memcmp(found, needleBase, needle.count) == 0 { return true }
            cursor = UnsafeRawPointer(found) + 1
        }
        return false
    }
}
