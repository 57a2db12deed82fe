import Foundation

/// A one-time code a person reads aloud and types (the Airmail journal's invitation codes): ten symbols of
/// Crockford's base32 (50 random bits) and a check symbol, shown as `K7Q4-M2XP-9RT`.
///
/// The check symbol (Luhn mod 32) catches every single mistyped symbol and nearly every swap of
/// two neighbours before anything is sent. Reading is forgiving the way Crockford intends: case,
/// dashes and spaces do not matter, and O, I and L are read as 0, 1 and 1.
public struct InvitationCode: Sendable, Equatable, CustomStringConvertible {
    /// The eleven symbols, canonical (upper case, no separators).
    public let symbols: String

    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    static let dataLength = 10

    public enum Problem: Error, Equatable, Sendable {
        case length(Int)
        case symbol(Character)
        case typo
    }

    /// A new random code.
    public static func random() -> InvitationCode {
        InvitationCode(values: randomValues(count: dataLength))
    }

    /// Reads what a person typed.
    public init(parsing text: String) throws(Problem) {
        self.init(values: try Self.values(parsing: text, dataLength: Self.dataLength))
    }

    private init(values: [Int]) {
        symbols = Self.symbols(values)
    }

    /// The symbols' values of a checked code of `dataLength` data symbols as a person typed it.
    static func values(parsing text: String, dataLength: Int) throws(Problem) -> [Int] {
        var values: [Int] = []
        for character in text.uppercased() where character != "-" && !character.isWhitespace {
            let canonical: Character = switch character {
            case "O": "0"
            case "I", "L": "1"
            default: character
            }
            guard let ascii = canonical.asciiValue, let value = Self.alphabet.firstIndex(of: ascii) else {
                throw .symbol(character)
            }
            values.append(value)
        }
        guard values.count == dataLength + 1 else { throw .length(values.count) }
        guard Self.checkValue(Array(values.prefix(dataLength))) == values[dataLength] else { throw .typo }
        return values
    }

    /// `count` random values and their check value.
    static func randomValues(count: Int) -> [Int] {
        var generator = SystemRandomNumberGenerator()
        let values = (0..<count).map { _ in Int.random(in: 0..<32, using: &generator) }
        return values + [checkValue(values)]
    }

    static func symbols(_ values: [Int]) -> String {
        String(decoding: values.map { Self.alphabet[$0] }, as: UTF8.self)
    }

    /// `XXXX-XXXX-XXX`, for reading aloud.
    public var description: String {
        let characters = Array(symbols)
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8...])
    }

    /// Luhn mod 32 over the data symbols: the symbol that makes the whole code's sum divisible by 32.
    static func checkValue(_ values: [Int]) -> Int {
        var sum = 0
        for (offset, value) in values.reversed().enumerated() {
            var addend = value
            if offset % 2 == 0 {
                addend *= 2
                addend = addend / 32 + addend % 32
            }
            sum += addend
        }
        return (32 - sum % 32) % 32
    }
}

extension InvitationCode.Problem: CustomStringConvertible {
    public var description: String {
        switch self {
        case .length(let count):
            return "An invitation code has 11 letters and digits (XXXX-XXXX-XXX); this one has \(count)."
        case .symbol(let character):
            return "\u{201C}\(character)\u{201D} cannot be part of an invitation code (it uses digits and the letters A–Z except I, L, O and U)."
        case .typo:
            return "The invitation code has a typo (its last symbol does not match the others); nothing was sent."
        }
    }
}
