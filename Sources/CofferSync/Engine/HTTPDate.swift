import CofferCore
import Foundation

/// The `Date` header of an HTTP answer (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`).
///
/// Only the fixed form is read: Kinto (waitress) writes it, and the obsolete forms an HTTP/1.1
/// sender must not produce are refused rather than guessed at.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Timestamp? {
        func isDigits(_ part: Substring, _ count: Int) -> Bool {
            part.count == count && part.allSatisfy({ $0.isASCII && $0.isNumber })
        }
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
              isDigits(parts[1], 2), let monthIndex = months.firstIndex(of: String(parts[2])),
              isDigits(parts[3], 4) else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ isDigits($0, 2) }) else { return nil }
        // Not `String(format:)`: its C varargs cost the runtime's first protocol lookups (~0.2 ms of an
        // idle `coffer sync`), and every number here already has its width.
        return Timestamp(iso8601: "\(parts[3])-\(padded(monthIndex + 1))-\(parts[1])T\(clock[0]):\(clock[1]):\(clock[2])Z")
    }

    private static func padded(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }
}
