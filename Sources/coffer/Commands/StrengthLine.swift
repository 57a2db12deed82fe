import CofferCore

/// The strength line `init`, `passwd` and `generate` print on stderr at a terminal: zxcvbn's
/// rating and bits, and its advice when the rating is below strong.
enum StrengthLine {
    static func text(for estimate: StrengthEstimate) -> String {
        var line = "Strength: \(estimate.rating.rawValue) (zxcvbn: about \(estimate.bits) bits)"
        if let feedback = estimate.feedback { line += ". " + feedback }
        return line + "\n"
    }
}
