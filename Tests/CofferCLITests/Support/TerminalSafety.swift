import Foundation
import XCTest

/// Text a stranger chose, holding every kind of control that drives a terminal, and the check that
/// none of it reaches one raw.
enum Hostile {
    /// OSC 52 (clipboard), OSC 0 (window title), CSI 2J (clear screen), a C1 CSI (U+009B), a
    /// right-to-left override, BEL and CR, after `tag` so each field can be told apart.
    static func text(_ tag: String) -> String {
        "\(tag)\u{1B}]52;c;UFdORUQ=\u{07}\u{1B}]0;PWNED-\(tag)\u{07}\u{1B}[2J\u{9B}31m\u{202E}moc.\r\u{07}end"
    }

    /// What a person sees of `text(tag)` on one line: the start of its visible escapes.
    static func shown(_ tag: String) -> String {
        "\(tag)\\e]52;c;UFdORUQ=\\a\\e]0;PWNED-\(tag)\\a\\e[2J\\u009B31m\\u202Emoc.\\r\\aend"
    }

    /// Where in `bytes` a control that drives a terminal sits raw, or nil: C0 but newline and tab,
    /// DEL, C1 (`C2 80`–`C2 9F`), the bidi marks, embeddings, overrides and isolates.
    static func firstUnsafeByte(in bytes: Data) -> Int? {
        let bytes = [UInt8](bytes)
        for index in bytes.indices {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            let third = index + 2 < bytes.count ? bytes[index + 2] : 0
            if byte < 0x20 && byte != 0x0A && byte != 0x09 { return index }
            if byte == 0x7F { return index }
            if byte == 0xC2 && (0x80...0x9F).contains(next) { return index }  // C1
            if byte == 0xD8 && next == 0x9C { return index }  // U+061C
            if byte == 0xE2 && next == 0x80 && [0x8E, 0x8F, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE].contains(third) { return index }
            if byte == 0xE2 && next == 0x81 && (0xA6...0xA9).contains(third) { return index }  // U+2066–2069
        }
        return nil
    }
}

/// Neither stdout nor stderr of `result` holds a raw control, and together they show each of
/// `shows` (the visible escapes: the field was printed, not dropped).
func assertTerminalSafe(_ result: CofferResult, shows: [String] = [], file: StaticString = #filePath, line: UInt = #line) {
    for (stream, bytes) in [("stdout", result.stdout), ("stderr", result.stderr)] {
        if let index = Hostile.firstUnsafeByte(in: bytes) {
            XCTFail("\(stream) holds a raw control at byte \(index) "
                + "(\(bytes[index...].prefix(12).map { String(format: "%02X", $0) }.joined(separator: " "))): "
                + result.summary.debugDescription, file: file, line: line)
        }
    }
    let text = result.out + result.err
    for expected in shows {
        XCTAssertTrue(text.contains(expected), "the output does not show \(expected.debugDescription): "
            + result.summary.debugDescription, file: file, line: line)
    }
}
