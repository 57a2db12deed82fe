import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// `ItemCodec` against the Foundation coders it replaced (`FoundationItemCodec`): the same bytes
/// out, the same items in, and every malformed text refused with an error.
final class ItemCodecTests: XCTestCase {
    private func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// Both accept (equal items) or both refuse. `mayBeStricter`: ours may refuse what JSONDecoder
    /// let through (trailing commas, a byte-order mark): the writer never produces them.
    private func decodesAlike(_ data: Data, mayBeStricter: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        let ours = Result { try ItemCodec.decode(data) }
        let theirs = Result { try FoundationItemCodec.decode(data) }
        switch (ours, theirs) {
        case (.success(let ours), .success(let theirs)):
            XCTAssertEqual(ours, theirs, text(data), file: file, line: line)
        case (.failure, .failure):
            break
        case (.success, .failure(let error)):
            XCTFail("accepted what JSONDecoder refused (\(error)): \(text(data).debugDescription)", file: file, line: line)
        case (.failure(let error), .success):
            if mayBeStricter { return }
            XCTFail("refused what JSONDecoder accepted (\(error)): \(text(data).debugDescription)", file: file, line: line)
        }
    }

    // MARK: The same as Foundation

    func testEncodesTheBytesJSONEncoderWrote() throws {
        var random = RandomItems(seed: 1)
        for _ in 0..<2000 {
            let item = random.item()
            XCTAssertEqual(text(try ItemCodec.encode(item)), text(try FoundationItemCodec.encode(item)))
        }
    }

    func testDecodesWhatJSONEncoderWrote() throws {
        var random = RandomItems(seed: 2)
        for _ in 0..<2000 {
            let item = random.item()
            XCTAssertEqual(try ItemCodec.decode(FoundationItemCodec.encode(item)), item)
        }
    }

    func testAgreesWithJSONDecoderOnEveryOneByteChange() throws {
        var random = RandomItems(seed: 3)
        let replacements: [UInt8?] = [nil, 0x00, 0x09, 0x0B, 0x20, 0x22, 0x5C, 0x2C, 0x3A, 0x7D, 0x5D, 0x30, 0x2D,
                                      0x65, 0x6E, 0x75, 0x80, 0xC3, 0xED, 0xFF]
        for _ in 0..<3 {
            var item = random.item()
            item.history = [HistoryEntry(created: random.timestamp(), patch: random.value())]
            let base = [UInt8](try FoundationItemCodec.encode(item))
            for position in base.indices {
                for replacement in replacements {
                    var changed = base
                    if let replacement { changed[position] = replacement } else { changed.remove(at: position) }
                    let around = changed[max(0, position - 1)..<min(changed.count, position + 2)]
                    let madeTrailingComma = [[0x2C, 0x7D], [0x2C, 0x5D]].contains { around.firstRange(of: $0) != nil }
                    decodesAlike(Data(changed), mayBeStricter: madeTrailingComma)
                }
            }
        }
    }

    /// The string scanner skips plain ASCII eight bytes at a time: a byte that needs a closer look
    /// (a quote, an escape, a control or non-ASCII byte, valid or not) is found at every offset
    /// within a word, and at the end of a string's last partial word.
    func testAgreesWithJSONDecoderWhereverAByteFallsInAWord() throws {
        let base = [UInt8](try FoundationItemCodec.encode(Fixture.item(id: "a", title: String(repeating: "A", count: 40))))
        let title = base.firstRange(of: Array(String(repeating: "A", count: 40).utf8))!
        let specials: [[UInt8]] = [[0x22], [0x5C, 0x6E], [0x5C], [0x00], [0x1F], [0x20], [0x7E], [0x7F], [0x80], [0xC3, 0xA9],
                                   [0xE2, 0x80, 0xA8], [0xF0, 0x9F, 0x94, 0x91], [0xC3], [0xED, 0xA0, 0x80], [0xFF]]
        for offset in 0..<24 {
            for special in specials {
                var changed = base
                changed.replaceSubrange((title.lowerBound + offset)..<(title.lowerBound + offset + 1), with: special)
                decodesAlike(Data(changed))
                var shortened = changed   // the special byte as the string's last before its quote
                shortened.removeSubrange((title.lowerBound + offset + special.count)..<(title.upperBound + special.count - 1))
                decodesAlike(Data(shortened))
            }
        }
    }

    func testAgreesWithJSONDecoderOnOddButValidTexts() {
        let entry = #""entry":{"kind":"login","notes":"","password":"","username":""}"#
        let rest = #""disabled":false,"history":[],"id":"a","modified":"2026-01-01T00:00:00Z","origins":[],"tags":[],"title":"t""#
        let texts = [
            // Any member order and whitespace; unknown members, null optionals, escapes of every kind.
            " \r\n\t{ \"title\" : \"t\" , \"created\":\"2026-01-01T00:00:00Z\",\(entry),\(rest.replacingOccurrences(of: #""title":"t""#, with: #""x":[{"y":[1,2.5e3,-0.0]}]"#)) } \n",
            "{\"created\":\"2026-01-01T00:00:00Z\",\(entry),\(rest),\"last_used\":null}",
            "{\"created\":\"2026-01-01T00:00:00Z\",\(entry.replacingOccurrences(of: "}", with: #","totp":null}"#)),\(rest)}",
            #"{"created":"2026\u002d01-01T00:00:00Z","#
                + #""entry":{"kind":"login","notes":"\u00e9\u0000\/\b\f\n\r\t\"\\","password":"\ud83d\udd11\uD83D\uDD11","username":"\u2028"},"#
                + rest + "}",
            "{\"created\":\"2026-01-01T00:00:00Z\",\(entry),\(rest.replacingOccurrences(of: #""history":[]"#, with: #""history":[{"created":"2026-01-01T00:00:00.1Z","patch":{"a":[true,false,null,{"b":2.5e-324,"z":0.000e-999}],"c":123456789012345678901234567890}},{"patch":"x","created":"2026-01-01T00:00:00.123456789Z"}]"#))}",
        ]
        for text in texts { decodesAlike(Data(text.utf8)) }
        for text in texts { XCTAssertNoThrow(try ItemCodec.decode(Data(text.utf8)), text) }
    }

    // MARK: Round trips

    func testRoundTripsTrickyStrings() throws {
        let tricky = ["", "\"", "\\", "\\\"", "/", "</script>", "\u{0}", "\u{1}\u{1F}\u{7F}", "tab\there", "crlf\r\n",
                      "🔑", "👩‍👩‍👧‍👦", "🇫🇷🇩🇪", "e\u{301}\u{302}\u{303}", "\u{FEFF}", "\u{10FFFF}", "\u{2028}\u{2029}",
                      "日本語", "\u{D7FF}\u{E000}", "\\u0041", "\\ud800"]
        for (index, value) in tricky.enumerated() {
            var item = Fixture.item(id: "item-\(index)", title: value, username: value, password: value,
                                    origins: [value], tags: [value, value + value])
            item.entry.totp = value
            item.entry.notes = value
            item.history = [HistoryEntry(created: Fixture.epoch, patch: .object([value: .string(value)]))]
            let encoded = try ItemCodec.encode(item)
            XCTAssertEqual(try ItemCodec.decode(encoded), item, value.debugDescription)
            XCTAssertEqual(text(encoded), text(try FoundationItemCodec.encode(item)), value.debugDescription)
        }
    }

    func testNaNAndInfinityCannotBeEncoded() {
        for number in [Double.nan, .infinity, -.infinity] {
            var item = Fixture.item()
            item.history = [HistoryEntry(created: Fixture.epoch, patch: .array([.number(number)]))]
            XCTAssertEqual(thrownError { try ItemCodec.encode(item) } as? ItemJSONError, .unencodableNumber)
        }
    }

    // MARK: Refused

    private func minimal(history: String = "[]", title: String = #""t""#) -> String {
        #"{"created":"2026-01-01T00:00:00Z","disabled":false,"entry":{"kind":"login","notes":"","password":"","username":""},"#
            + #""history":\#(history),"id":"a","modified":"2026-01-01T00:00:00Z","origins":[],"tags":[],"title":\#(title)}"#
    }

    func testTheMinimalItemDecodes() {
        XCTAssertNoThrow(try ItemCodec.decode(Data(minimal().utf8)))
    }

    func testLoneSurrogateEscapesAreRefused() {
        for escape in [#"\ud800"#, #"\udc00"#, #"\ud800x"#, #"\ud800\u0041"#, #"\udbff\ud800"#, #"\ud800\"#, #"\uDFFF"#] {
            let data = Data(minimal(title: "\"a\(escape)\"").utf8)
            XCTAssertThrowsError(try ItemCodec.decode(data), escape)
            decodesAlike(data)
        }
    }

    func testMalformedTextsAreRefused() {
        let valid = minimal()
        var texts = [
            "", " ", "null", "[]", "\"item\"", "{}", valid + "x", valid + "{}",
            minimal(title: "\"a\u{1}b\""), minimal(title: #""\x""#), minimal(title: #""\u12G4""#), minimal(title: #""\u12""#),
            minimal(title: "1"), minimal(title: "null"), minimal(history: "{}"), minimal(history: "[1]"),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z"}]"#),
            minimal(history: #"[{"created":"yesterday","patch":null}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":1e400}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":-1e-400}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":[01]}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":[1.]}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":[-]}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":[.5]}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":[,1]}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":NaN}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":tru}]"#),
            minimal(history: "[" + String(repeating: "[", count: 100_000) + "]"),
            valid.replacingOccurrences(of: #""disabled":false"#, with: #""disabled":0"#),
            valid.replacingOccurrences(of: #""id":"a","#, with: ""),
            valid.replacingOccurrences(of: #""kind":"login","#, with: ""),
            valid.replacingOccurrences(of: #""modified":"2026-01-01T00:00:00Z""#, with: #""modified":"2026-02-30T00:00:00Z""#),
        ]
        texts += (0..<valid.utf8.count).map { String(decoding: Array(valid.utf8)[..<$0], as: UTF8.self) }
        for text in texts {
            XCTAssertThrowsError(try ItemCodec.decode(Data(text.utf8)), text.debugDescription)
        }
        XCTAssertThrowsError(try ItemCodec.decode(Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])))
        XCTAssertThrowsError(try ItemCodec.decode(Data(minimal(title: "\"\u{E9}\"").utf8.map { $0 == 0xA9 ? 0x29 : $0 })))
    }

    /// JSONDecoder kept the first of two same-named members and allowed trailing commas and a
    /// byte-order mark; ours refuses them (the writer never produces them, so the text was not ours).
    func testRepeatsTrailingCommasAndByteOrderMarksAreRefused() {
        let repeats = [
            minimal().replacingOccurrences(of: #""title":"t""#, with: #""title":"t","title":"u""#),
            minimal().replacingOccurrences(of: #""kind":"login""#, with: #""kind":"login","kind":"x""#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":{"a":1,"a":2}}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":{"a":1,}}]"#),
            minimal(history: #"[{"created":"2026-01-01T00:00:00Z","patch":[1,]}]"#),
            "\u{FEFF}" + minimal(),
        ]
        for text in repeats {
            XCTAssertThrowsError(try ItemCodec.decode(Data(text.utf8)), text)
        }
    }

    // MARK: Timestamps as bytes

    func testTimestampBytesMatchTheStringForms() {
        var random = RandomItems(seed: 4)
        let edges: [Int64] = [0, -1, 999, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000,
                              951_782_400_000, -2_208_988_800_000, Int64.max, Int64.min]
        for milliseconds in edges + (0..<5000).map({ _ in random.timestamp().milliseconds }) {
            let time = Timestamp(milliseconds: milliseconds)
            var bytes: [UInt8] = []
            time.appendISO8601(to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), time.iso8601)
            let parsed = bytes.withUnsafeBufferPointer { Timestamp(iso8601Bytes: $0) }
            XCTAssertEqual(parsed, Timestamp(iso8601: time.iso8601), time.iso8601)
        }
        let texts = ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.1Z", "2026-01-01T00:00:00.123456789Z",
                     "2026-01-01T00:00:00.1234567890Z", "2024-02-29T23:59:60Z", "2023-02-29T00:00:00Z",
                     "9999-12-31T23:59:60Z", "0000-01-01T00:00:00Z", "2026-1-01T00:00:00Z", "2026-01-01 00:00:00Z",
                     "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+00:00", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z"]
        for text in texts {
            let parsed = Array(text.utf8).withUnsafeBufferPointer { Timestamp(iso8601Bytes: $0) }
            XCTAssertEqual(parsed, Timestamp(iso8601: text), text)
        }
    }
}
