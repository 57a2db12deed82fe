import Crypto
import Foundation

/// `coffer health`: the vault's passwords that are weak, reused, old or breached (architecture §13).
///
/// Only items with a password are checked. Findings are sorted by title, then id, so the
/// report reads the same on every run.
public struct HealthReport: Sendable, Equatable {
    public struct Weak: Sendable, Equatable {
        public var id: String
        public var title: String
        public var bits: Int
    }

    /// Items that share one password (two or more).
    public struct Reused: Sendable, Equatable {
        public var ids: [String]
        public var titles: [String]
    }

    public struct Old: Sendable, Equatable {
        public var id: String
        public var title: String
        public var changed: Timestamp
    }

    public struct Breached: Sendable, Equatable {
        public var id: String
        public var title: String
        /// How often the breach list says the password was seen.
        public var count: Int
    }

    public var weak: [Weak] = []
    public var reused: [Reused] = []
    public var old: [Old] = []
    /// Empty when no breach list was given.
    public var breached: [Breached] = []

    public var isEmpty: Bool { weak.isEmpty && reused.isEmpty && old.isEmpty && breached.isEmpty }

    /// A password unchanged for longer than this is old (a year of 365 days).
    public static let oldAfter: TimeInterval = 365 * 24 * 3600

    /// Checks `items` at `now` (the vault's corrected clock), against `breaches` when given.
    public static func check(_ items: [Item], now: Timestamp, breaches: BreachList? = nil) throws -> HealthReport {
        let checked = items.filter { !$0.entry.password.isEmpty }
            .sorted { ($0.title.lowercased(), $0.id) < ($1.title.lowercased(), $1.id) }
        var report = HealthReport()
        let oldBefore = Timestamp(milliseconds: now.milliseconds - Int64(oldAfter * 1000))
        for item in checked {
            let bits = PassphraseStrength.estimate(item.entry.password).bits
            if bits < PassphraseStrength.weakBelowBits { report.weak.append(Weak(id: item.id, title: item.title, bits: bits)) }
            let changed = item.passwordChanged
            if changed < oldBefore { report.old.append(Old(id: item.id, title: item.title, changed: changed)) }
            if let count = try breaches?.count(of: item.entry.password) {
                report.breached.append(Breached(id: item.id, title: item.title, count: count))
            }
        }
        report.reused = reusedGroups(checked)
        return report
    }

    /// Groups of items whose passwords are equal, compared by HMAC-SHA256 under a key made for
    /// this run: the grouping holds only MACs, and they mean nothing once the key is gone.
    static func reusedGroups(_ items: [Item]) -> [Reused] {
        let key = SymmetricKey(size: .bits256)
        var groups: [Data: [Item]] = [:]
        var order: [Data] = []
        for item in items {
            let mac = Data(HMAC<SHA256>.authenticationCode(for: Data(item.entry.password.utf8), using: key))
            if groups[mac] == nil { order.append(mac) }
            groups[mac, default: []].append(item)
        }
        return order.compactMap { mac in
            guard let group = groups[mac], group.count > 1 else { return nil }
            return Reused(ids: group.map(\.id), titles: group.map(\.title))
        }
    }
}
