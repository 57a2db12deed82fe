import Foundation

/// Case- and accent-folded UTF-8, what the list's filter and title order compare.
///
/// ASCII text (most titles, usernames, origins) is lowercased byte by byte; anything else goes
/// through Foundation's folding, which costs microseconds per string — too slow for 100,000 items.
enum FoldedText {
    static func append(_ text: String, to output: inout [UInt8]) {
        var text = text
        let isASCII = text.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 >= 0x80 }) else { return false }
            let start = output.count
            output.append(contentsOf: utf8)
            for index in start..<output.count where output[index] >= UInt8(ascii: "A") && output[index] <= UInt8(ascii: "Z") {
                output[index] |= 0x20
            }
            return true
        }
        if !isASCII {
            output.append(contentsOf: text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).utf8)
        }
    }

    static func bytes(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        append(text, to: &output)
        return output
    }
}
