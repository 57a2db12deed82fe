import Foundation

/// A point in time with millisecond precision, written as ISO-8601 UTC (`2026-11-22T03:09:00.123Z`).
///
/// Hand-rolled rather than `ISO8601DateFormatter`: items carry three of these, and formatting
/// them is on the path of every encrypt and decrypt.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public init(_ date: Date) {
        self.milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    public static func now() -> Timestamp { Timestamp(Date()) }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public var description: String { iso8601 }

    /// The ISO-8601 UTC form with milliseconds.
    public var iso8601: String {
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        // Not `milliseconds - seconds * 1000`: that product overflows just above Int64.min.
        let millis = Int(milliseconds.floorRemainder(dividingBy: 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` (UTC only); nil for anything else.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        for (index, char) in separators where bytes[index] != char.asciiValue { return nil }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // timegm would quietly roll 2026-02-30 over into March.
        let isLeapYear = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let daysInMonth = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= daysInMonth[month - 1] else { return nil }
        var millis = 0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count >= 22, bytes.count <= 30,
                  let fraction = number(20..<(bytes.count - 1)) else { return nil }
            let digits = bytes.count - 21
            millis = digits >= 3 ? fraction / Int(pow(10, Double(digits - 3))) : fraction * Int(pow(10, Double(3 - digits)))
        } else if bytes.count != 20 {
            return nil
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        // A leap second at the very end of 9999 rolls over into year 10000, which `iso8601` prints
        // with five digits and this parser refuses: an item holding it could never be read back.
        guard seconds <= 253_402_300_799 else { return nil }
        self.milliseconds = Int64(seconds) * 1000 + Int64(millis)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO-8601 UTC time: \(text)")
        }
        self = value
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }

    fileprivate func floorRemainder(dividingBy divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
