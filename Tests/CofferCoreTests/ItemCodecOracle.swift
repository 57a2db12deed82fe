import Foundation
@testable import CofferCore
import CofferTestSupport

/// The codec `ItemCodec` replaced (Foundation's coders, same options): the reference its output
/// and its accepted inputs are compared with.
enum FoundationItemCodec {
    static func encode(_ item: Item) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(item)
    }

    static func decode(_ data: Data) throws -> Item {
        try JSONDecoder().decode(Item.self, from: data)
    }
}

/// Random items whose strings and patches reach the codec's corners: escapes, control characters,
/// emoji, combining marks, non-BMP scalars, odd member names, numbers of every size.
struct RandomItems {
    var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    static let pieces: [String] = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\\/", "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\n", "\u{B}", "\u{C}", "\r",
        "\u{1F}", "\u{7F}", "é", "e\u{301}", "\u{2028}", "\u{2029}", "ß", "ﬁ", "日本", "🔑", "👩‍👩‍👧", "🇫🇷",
        "\u{FEFF}", "\u{10FFFF}", "\u{FFFD}", "Ω", "Ω", "K", "{", "}", "[", "]", ":", ",", "null", "true", "1e5",
    ]

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }

    mutating func string(maximumPieces: Int = 8) -> String {
        (0..<int(0..<(maximumPieces + 1))).map { _ in RandomItems.pieces[int(0..<RandomItems.pieces.count)] }.joined()
    }

    mutating func timestamp() -> Timestamp {
        // Years 0000 to 9999, the range the ISO-8601 form can hold.
        Timestamp(milliseconds: Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &generator))
    }

    mutating func number() -> Double {
        switch int(0..<6) {
        case 0: return Double(int(-1000..<1000))
        case 1: return Double(int(-1000..<1000)) / 8
        case 2: return Double.random(in: -1...1, using: &generator)
        case 3:
            let bits = Double(bitPattern: generator.next())
            return bits.isFinite ? bits : 0
        case 4: return [0.0, -0.0, 1e21, 1e-7, 123456789012345678, 0.1, 5e-324, 1.7976931348623157e308][int(0..<8)]
        default: return Double(int(0..<1_000_000)) * 1e15
        }
    }

    mutating func value(depth: Int = 0) -> JSONValue {
        switch int(0..<(depth > 2 ? 4 : 6)) {
        case 0: return .null
        case 1: return .bool(int(0..<2) == 0)
        case 2: return .number(number())
        case 3: return .string(string())
        case 4: return .array((0..<int(0..<4)).map { _ in value(depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<int(0..<5) { members[string(maximumPieces: 3)] = value(depth: depth + 1) }
            return .object(members)
        }
    }

    /// A member name none of `known` (or the empty name's corner: it is a name too).
    mutating func memberName(avoiding known: Set<String>) -> String {
        let name = string(maximumPieces: 3)
        return known.contains(name) ? name + "·" : name
    }

    mutating func item() -> Item {
        var entry = Entry(kind: int(0..<4) == 0 ? string() : Entry.loginKind, username: string(), password: string(),
                          notes: string(maximumPieces: 20), totp: int(0..<2) == 0 ? nil : string())
        // Kinds' fields, custom fields, and a newer version's members (issue 30): text members of
        // the entry are fields; its other members, and the item's, are kept as they came.
        let entryNames: Set = ["kind", "username", "password", "notes", "totp", "custom"]
        for _ in 0..<int(0..<3) { entry.fields[memberName(avoiding: entryNames)] = string() }
        entry.custom = (0..<int(0..<3)).map { index in
            CustomField(id: "f\(index)", label: string(), value: string(), typeName: int(0..<3) == 0 ? string() : "hidden")
        }
        for _ in 0..<int(0..<2) {
            var extra = value()
            if extra == .null || extra.stringValue != nil { extra = .array([extra]) }
            entry.extra[memberName(avoiding: entryNames.union(entry.fields.keys))] = extra
        }
        let history = (0..<int(0..<4)).map { _ in
            // A history entry carries the tags before its change when it changed them.
            HistoryEntry(created: timestamp(), patch: value(), tags: int(0..<3) == 0 ? (0..<int(0..<3)).map { _ in string() } : nil)
        }
        var item = Item(id: int(0..<3) == 0 ? string() : Item.newID(), title: string(),
                        origins: (0..<int(0..<3)).map { _ in string() }, tags: (0..<int(0..<3)).map { _ in string() },
                        entry: entry, disabled: int(0..<2) == 0, created: timestamp(), modified: timestamp(),
                        lastUsed: int(0..<2) == 0 ? nil : timestamp(), history: history)
        item.attachments = (0..<int(0..<3)).map { index in
            Attachment(id: "a\(index)", name: string(), size: int(0..<17_000_000),
                       sha256: String(repeating: "0f", count: 32), added: timestamp())
        }
        if int(0..<4) == 0 {
            let itemNames: Set = ["id", "title", "origins", "tags", "entry", "disabled", "created", "modified", "last_used",
                                  "history", "times", "attachments"]
            item.extra[memberName(avoiding: itemNames)] = value()
        }
        return item
    }
}
