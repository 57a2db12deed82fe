import Foundation

/// Finds, in the bytes of a JSON object, the objects of the array under one top-level key — as
/// byte ranges of the original text, so each can be handed on without being written out again.
///
/// It only tracks strings (with escapes) and nesting; the caller has already parsed the same
/// bytes as JSON (which rejects malformed input) and checks that the counts agree.
enum JSONArraySlices {
    static func objects(under key: String, in bytes: Data) -> [Range<Data.Index>]? {
        let wanted = Array(key.utf8)
        var ranges: [Range<Data.Index>] = []
        var depth = 0
        var inString = false
        var escaped = false
        var stringStart = bytes.startIndex
        var lastString: ArraySlice<UInt8>? = nil
        var currentKey: ArraySlice<UInt8>? = nil
        var inTarget = false
        var found = false
        var elementStart = bytes.startIndex
        return bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> [Range<Data.Index>]? in
            let base = bytes.startIndex
            for offset in 0..<buffer.count {
                let byte = buffer[offset]
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                        if depth == 1 { lastString = ArraySlice(buffer[(stringStart - base)..<offset]) }
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                    stringStart = base + offset + 1
                case UInt8(ascii: ":") where depth == 1:
                    currentKey = lastString
                case UInt8(ascii: ","):
                    if depth == 1 { currentKey = nil }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    if depth == 2, byte == UInt8(ascii: "["), let currentKey, currentKey.elementsEqual(wanted) {
                        if found { return nil } // the key twice: ambiguous
                        found = true
                        inTarget = true
                    } else if inTarget, depth == 3, byte == UInt8(ascii: "{") {
                        elementStart = base + offset
                    }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if inTarget, depth == 3, byte == UInt8(ascii: "}") {
                        ranges.append(elementStart..<(base + offset + 1))
                    }
                    if inTarget, depth == 2 { inTarget = false }
                    depth -= 1
                default:
                    break
                }
            }
            return found ? ranges : nil
        }
    }
}
