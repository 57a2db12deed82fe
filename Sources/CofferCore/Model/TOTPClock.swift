import Foundation

/// TOTP codes follow this device's clock, as every authenticator's do.
///
/// The server's `Date` header corrects the times Coffer writes (edits, revisions), but it must not
/// move a code: a server that says it is 30 days ahead would otherwise make every code the one for
/// 30 days from now, and anyone who answers the sync requests can say so. When the last sync
/// measured the two clocks more than `warningThreshold` apart, the code carries `warning` instead.
public enum TOTPClock {
    /// One TOTP period: within it the code a site expects is still the one shown.
    public static let warningThreshold: Int64 = 30_000

    /// The sentence shown beside a code when the sync server's clock (`offsetMilliseconds` ahead of
    /// this device's; negative when behind) is too far off; nil when it is not.
    public static func warning(offsetMilliseconds: Int64) -> String? {
        guard abs(offsetMilliseconds) > warningThreshold else { return nil }
        let direction = offsetMilliseconds > 0 ? "ahead of" : "behind"
        return "the sync server's clock is \(amount(abs(offsetMilliseconds))) \(direction) this device's; "
            + "the code follows this device's clock: if a site refuses it, check the clock"
    }

    /// `75 s`, `12 min`, `5 h`, `30 days`, each rounded to the nearest (the offset is measured to
    /// within the second a `Date` header leaves open).
    static func amount(_ milliseconds: Int64) -> String {
        let seconds = (milliseconds + 500) / 1000
        func rounded(_ unit: Int64) -> Int64 { (seconds + unit / 2) / unit }
        switch seconds {
        case ..<120: return "\(seconds) s"
        case ..<7_200: return "\(rounded(60)) min"
        case ..<172_800: return "\(rounded(3_600)) h"
        default: return "\(rounded(86_400)) days"
        }
    }
}
