import CofferCore
import Foundation

/// Times and durations as the screen words them. Pure: the clock and the zone are parameters.
public enum Format {
    /// "45 s", "5 min", "2 h", "3 d" (rounded down).
    public static func duration(_ seconds: TimeInterval) -> String {
        let whole = max(0, Int(seconds))
        switch whole {
        case ..<60: return "\(whole) s"
        case ..<3600: return "\(whole / 60) min"
        case ..<86_400: return "\(whole / 3600) h"
        default: return "\(whole / 86_400) d"
        }
    }

    /// "just now", "12 s ago", "3 min ago"…; "never" for nil.
    static func age(of date: Date?, now: Date) -> String {
        guard let date else { return "never" }
        let seconds = now.timeIntervalSince(date)
        return seconds < 5 ? "just now" : duration(seconds) + " ago"
    }

    static func components(_ date: Date, in zone: TimeZone) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    }

    static func pad(_ value: Int?) -> String {
        let value = value ?? 0
        return value < 10 ? "0\(value)" : "\(value)"
    }

    /// A file's size as people read it, in decimal units: "512 bytes", "1 byte", "14.2 kB", "1.2 MB".
    static func size(_ bytes: Int) -> String {
        func tenths(_ value: Int, _ unit: Int) -> String {
            let scaled = (value * 10 + unit / 2) / unit
            return "\(scaled / 10).\(scaled % 10)"
        }
        switch bytes {
        case ..<1000: return bytes == 1 ? "1 byte" : "\(bytes) bytes"
        case ..<999_950: return tenths(bytes, 1000) + " kB"
        default: return tenths(bytes, 1_000_000) + " MB"
        }
    }

    /// "14:03:20".
    static func clockTime(_ date: Date, in zone: TimeZone) -> String {
        let parts = components(date, in: zone)
        return "\(pad(parts.hour)):\(pad(parts.minute)):\(pad(parts.second))"
    }

    /// "2026-11-21 09:00".
    static func dateTime(_ date: Date, in zone: TimeZone) -> String {
        let parts = components(date, in: zone)
        return "\(parts.year ?? 0)-\(pad(parts.month))-\(pad(parts.day)) \(pad(parts.hour)):\(pad(parts.minute))"
    }

    static func dateTime(_ timestamp: Timestamp, in zone: TimeZone) -> String {
        dateTime(timestamp.date, in: zone)
    }

    /// "2026-11-21".
    static func date(_ timestamp: Timestamp, in zone: TimeZone) -> String {
        let parts = components(timestamp.date, in: zone)
        return "\(parts.year ?? 0)-\(pad(parts.month))-\(pad(parts.day))"
    }

    /// "1 item", "3 items".
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
