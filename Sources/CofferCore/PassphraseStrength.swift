import Foundation

/// A rough strength estimate for a passphrase a person typed (shown at creation, never enforced
/// beyond "not empty"): bits from the character pool, discounted for repetition.
public enum PassphraseStrength: String, Sendable {
    case veryWeak = "very weak", weak, fair, strong, veryStrong = "very strong"

    public static func estimate(_ passphrase: String) -> (bits: Int, rating: PassphraseStrength) {
        var pool = 0
        let scalars = passphrase.unicodeScalars
        if scalars.contains(where: { ("a"..."z").contains($0) }) { pool += 26 }
        if scalars.contains(where: { ("A"..."Z").contains($0) }) { pool += 26 }
        if scalars.contains(where: { ("0"..."9").contains($0) }) { pool += 10 }
        if scalars.contains(where: { $0.isASCII && !$0.properties.isAlphabetic && !("0"..."9").contains($0) }) { pool += 33 }
        if scalars.contains(where: { !$0.isASCII }) { pool += 100 }
        let distinct = Set(scalars).count
        let effectiveLength = min(scalars.count, distinct * 2)
        let bits = pool > 0 ? Int(Double(effectiveLength) * log2(Double(pool))) : 0
        let rating: PassphraseStrength
        switch bits {
        case ..<28: rating = .veryWeak
        case ..<36: rating = .weak
        case ..<60: rating = .fair
        case ..<100: rating = .strong
        default: rating = .veryStrong
        }
        return (bits, rating)
    }
}
