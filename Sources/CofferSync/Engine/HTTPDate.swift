import CofferCore
import Foundation

/// The `Date` header of an HTTP answer (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`).
///
/// Only the fixed form is read: Kinto (waitress) writes it, and the obsolete forms an HTTP/1.1
/// sender must not produce are refused rather than guessed at.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Timestamp? {
        func digits(_ part: Substring, _ count: Int) -> Int? {
            part.count == count && part.allSatisfy({ $0.isASCII && $0.isNumber }) ? Int(part) : nil
        }
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = digits(parts[1], 2),
              let monthIndex = months.firstIndex(of: String(parts[2])),
              let year = digits(parts[3], 4) else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, let hour = digits(clock[0], 2), let minute = digits(clock[1], 2),
              let second = digits(clock[2], 2) else { return nil }
        let iso = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, monthIndex + 1, day, hour, minute, second)
        return Timestamp(iso8601: iso)
    }
}
