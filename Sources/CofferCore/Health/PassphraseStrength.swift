import CZxcvbn

/// How hard a passphrase or password is to guess, rated from zxcvbn's estimate (Debian's
/// zxcvbn-c, the estimator KeePassXC uses): it finds dictionary words, names, keyboard walks,
/// sequences, repeats and dates, so "password1234" is about 3 bits, not the 60 a character-pool
/// formula gives it.
///
/// The scale, in zxcvbn bits (an attacker's log2 guesses); the screen, `init`, `passwd`,
/// the generator and `coffer health` all use it, and the README repeats it:
///
/// | bits    | rating      |
/// |---------|-------------|
/// | < 30    | very weak   |
/// | 30–49   | weak        |  `coffer health` reports anything below 50 bits (architecture §13)
/// | 50–69   | fair        |
/// | 70–89   | strong      |
/// | ≥ 90    | very strong |
public enum PassphraseStrength: String, Sendable, CaseIterable {
    case veryWeak = "very weak", weak, fair, strong, veryStrong = "very strong"

    /// Below this many bits a password is reported weak by `coffer health`.
    public static let weakBelowBits = 50

    /// The lowest bits of each rating above `veryWeak`, in order.
    static let thresholds: [(bits: Int, rating: PassphraseStrength)] = [
        (90, .veryStrong), (70, .strong), (weakBelowBits, .fair), (30, .weak),
    ]

    public static func rating(bits: Int) -> PassphraseStrength {
        thresholds.first { bits >= $0.bits }?.rating ?? .veryWeak
    }

    /// zxcvbn's estimate of `passphrase`, its rating, and what made it guessable.
    public static func estimate(_ passphrase: String) -> StrengthEstimate {
        var matches: UnsafeMutablePointer<ZxcMatch_t>?
        let entropy = ZxcvbnMatch(passphrase, nil, &matches)
        defer { ZxcvbnFreeInfo(matches) }
        var weaknesses: [StrengthEstimate.Weakness] = []
        var match = matches
        while let current = match?.pointee {
            if let weakness = StrengthEstimate.Weakness(matchType: current.Type.rawValue), !weaknesses.contains(weakness) {
                weaknesses.append(weakness)
            }
            match = current.Next
        }
        // Rounded down: a rating never reads better than the estimate.
        let bits = entropy.isFinite ? Int(max(0, entropy)) : 0
        return StrengthEstimate(bits: bits, rating: rating(bits: bits), weaknesses: weaknesses.sorted())
    }
}

/// One passphrase's estimate: bits, rating, and the guessable patterns zxcvbn found in it.
public struct StrengthEstimate: Sendable, Equatable {
    public var bits: Int
    public var rating: PassphraseStrength
    public var weaknesses: [Weakness]

    /// A kind of pattern zxcvbn found; advice names the kind, never the characters, because the
    /// passphrase itself is never shown.
    public enum Weakness: Int, Sendable, Comparable, CaseIterable {
        case commonWord, substitution, repetition, sequence, keyboardPattern, date

        init?(matchType raw: UInt32) {
            if raw & MULTIPLE_MATCH.rawValue != 0 { self = .repetition; return }
            switch ZxcTypeMatch_t(rawValue: raw) {
            case DICTIONARY_MATCH, USER_MATCH: self = .commonWord
            case DICT_LEET_MATCH, USER_LEET_MATCH: self = .substitution
            case REPEATS_MATCH: self = .repetition
            case SEQUENCE_MATCH: self = .sequence
            case SPATIAL_MATCH: self = .keyboardPattern
            case DATE_MATCH, YEAR_MATCH: self = .date
            default: return nil
            }
        }

        public static func < (a: Weakness, b: Weakness) -> Bool { a.rawValue < b.rawValue }

        public var advice: String {
            switch self {
            case .commonWord: return "contains common words or names"
            case .substitution: return "letter swaps like 4 for a are well known"
            case .repetition: return "repeated parts add little"
            case .sequence: return "sequences like abc or 123 are guessed early"
            case .keyboardPattern: return "keyboard patterns like qwerty are guessed early"
            case .date: return "dates and years are guessed early"
            }
        }
    }

    /// One sentence of advice for a passphrase rated below strong, else nil: what zxcvbn found,
    /// and what to do about it.
    public var feedback: String? {
        guard rating < .strong else { return nil }
        let found = weaknesses.map(\.advice)
        let problem = found.isEmpty ? "too short" : found.joined(separator: "; ")
        return problem.prefix(1).uppercased() + problem.dropFirst() + ". Add a few uncommon words."
    }
}

extension PassphraseStrength: Comparable {
    /// 0 for very weak up to 4 for very strong (the screen's meter fills this many plus one).
    public var rank: Int {
        switch self {
        case .veryWeak: return 0
        case .weak: return 1
        case .fair: return 2
        case .strong: return 3
        case .veryStrong: return 4
        }
    }

    public static func < (a: PassphraseStrength, b: PassphraseStrength) -> Bool { a.rank < b.rank }
}
