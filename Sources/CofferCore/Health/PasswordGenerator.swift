import CSodium

/// Passwords from the system CSPRNG (libsodium's `randombytes_uniform`, unbiased).
public enum PasswordGenerator {
    public struct CharacterClasses: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let lowercase = CharacterClasses(rawValue: 1)
        public static let uppercase = CharacterClasses(rawValue: 2)
        public static let digits = CharacterClasses(rawValue: 4)
        public static let symbols = CharacterClasses(rawValue: 8)
        public static let all: CharacterClasses = [.lowercase, .uppercase, .digits, .symbols]
    }

    static let alphabets: [(CharacterClasses, [Character])] = [
        (.lowercase, Array("abcdefghijkmnopqrstuvwxyz")),
        (.uppercase, Array("ABCDEFGHJKLMNPQRSTUVWXYZ")),
        (.digits, Array("23456789")),
        (.symbols, Array("!#$%&*+-.:;=?@^_~")),
    ]

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case lengthOutOfRange(Int)
        case noClasses
        case wordsOutOfRange(Int)

        public var description: String {
            switch self {
            case .lengthOutOfRange(let length): return "Length \(length) is out of range; choose 4 to 500."
            case .noClasses: return "Choose at least one character class."
            case .wordsOutOfRange(let count): return "\(count) words is out of range; choose 3 to 40."
            }
        }
    }

    /// `length` characters with at least one from each chosen class (look-alikes 0/O, 1/l/I left out).
    public static func characters(length: Int = 20, classes: CharacterClasses = .all) throws -> String {
        guard (4...500).contains(length) else { throw Problem.lengthOutOfRange(length) }
        let chosen = alphabets.filter { classes.contains($0.0) }.map(\.1)
        guard !chosen.isEmpty else { throw Problem.noClasses }
        let pool = chosen.flatMap { $0 }
        // Rejection sampling: redraw until every class is present; the result stays uniform over
        // the passwords that satisfy the rule.
        while true {
            let password = (0..<length).map { _ in pool[uniform(pool.count)] }
            if chosen.allSatisfy({ alphabet in password.contains(where: alphabet.contains) }) || length < chosen.count {
                return String(password)
            }
        }
    }

    /// `count` words from the 2,048-word list, joined by `separator` (11 bits of entropy each).
    public static func words(count: Int = 6, separator: String = "-") throws -> String {
        guard (3...40).contains(count) else { throw Problem.wordsOutOfRange(count) }
        return (0..<count).map { _ in String(Wordlist.words[uniform(Wordlist.words.count)]) }.joined(separator: separator)
    }

    /// Bits of entropy of a generated password (what the screen shows next to it).
    public static func entropyBits(length: Int, classes: CharacterClasses) -> Double {
        let size = alphabets.filter { classes.contains($0.0) }.reduce(0) { $0 + $1.1.count }
        return size > 0 ? Double(length) * log2(Double(size)) : 0
    }

    static func uniform(_ upperBound: Int) -> Int {
        Sodium.initialize()
        return Int(randombytes_uniform(UInt32(upperBound)))
    }
}

import Foundation
