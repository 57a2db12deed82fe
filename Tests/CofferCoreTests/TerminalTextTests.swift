import XCTest
@testable import CofferCore

final class TerminalTextTests: XCTestCase {
    /// Each kind of control a hostile field can hold, and what a person sees instead.
    func testEveryControlKindIsShownAsAVisibleEscape() {
        let rows: [(name: String, input: String, line: String)] = [
            ("OSC 52 clipboard", "a\u{1B}]52;c;SGVsbG8=\u{07}b", "a\\e]52;c;SGVsbG8=\\ab"),
            ("clear screen", "\u{1B}[2J", "\\e[2J"),
            ("C1 CSI", "x\u{9B}31mred", "x\\u009B31mred"),
            ("right-to-left override", "moc.\u{202E}elgoog", "moc.\\u202Eelgoog"),
            ("bidi isolate", "\u{2066}a\u{2069}", "\\u2066a\\u2069"),
            ("carriage return", "ok\rfake", "ok\\rfake"),
            ("newline and tab", "a\nb\tc", "a\\nb\\tc"),
            ("DEL and NUL", "\u{7F}\u{00}", "\\x7F\\x00"),
            ("plain text untouched", "Wi-Fi “home” ✓ 日本", "Wi-Fi “home” ✓ 日本"),
        ]
        for row in rows {
            XCTAssertEqual(TerminalText.line(row.input), row.line, row.name)
            XCTAssertTrue(TerminalText.isSafe(TerminalText.line(row.input)), row.name)
        }
    }

    func testNotesKeepTheirLinesAndTabsOnly() {
        XCTAssertEqual(TerminalText.lines("one\n\ttwo\r\u{1B}[8m"), "one\n\ttwo\\r\\e[8m")
    }

    /// A name cannot push the rest of a prompt off the line, with or without escapes.
    func testANameInAPromptIsShortAndOnOneLine() {
        let hostile = "laptop\u{201D} wants to join · 0000-00 · allow?" + String(repeating: " ", count: 200)
        let shown = TerminalText.name(hostile)
        XCTAssertEqual(shown.count, 40)
        XCTAssertTrue(shown.hasSuffix("\u{2026}"))
        XCTAssertEqual(TerminalText.name("\r\u{1B}[2Kphone"), "\\r\\e[2Kphone")
        XCTAssertEqual(TerminalText.name("phone"), "phone")
    }

    /// `--json` text: C1, DEL and bidi controls as `\uXXXX`; the values parse back unchanged.
    func testJSONTextEscapesWhatJSONSerializationLeavesRaw() throws {
        let value = ["t": "a\u{1B}]0;x\u{07}\u{7F}\u{9B}2J\u{85}\u{202E}\u{2066}\u{061C}\u{200F}\\\u{9B}é日"]
        let text = try ItemExchange.text(value)
        XCTAssertFalse(text.unicodeScalars.contains { TerminalText.isUnsafe($0) && $0 != "\n" }, text)
        XCTAssertTrue(text.contains("\\u009B2J") && text.contains("\\u202E") && text.contains("\\u007F"), text)
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        XCTAssertEqual(parsed, value)
        XCTAssertEqual(TerminalText.jsonEscaped("{\"a\": \"plain\"}"), "{\"a\": \"plain\"}")
    }

    /// A server's message: on one line, escaped, and cut.
    func testAMessageIsOneEscapedLineOfAtMostTheLimit() {
        let shown = TerminalText.message("\u{1B}]52;c;x\u{07}\n" + String(repeating: "y", count: 2_000))
        XCTAssertTrue(shown.hasPrefix("\\e]52;c;x\\a\\ny"))
        XCTAssertEqual(shown.count, TerminalText.messageLimit)
        XCTAssertTrue(TerminalText.isSafe(shown))
    }
}

