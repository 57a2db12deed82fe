import Crypto
import Foundation

/// `coffer health`: the vault's passwords that are weak, reused, old or breached (architecture §13).
///
/// Checked: every password, and a login's hidden custom fields (a PIN, a recovery code kept as
/// a hidden field is a password too). Findings are sorted by title, then id, so the report reads
/// the same on every run; `field` names a custom field's label, nil for the password.
public struct HealthReport: Sendable, Equatable {
    public struct Weak: Sendable, Equatable {
        public var id: String
        public var title: String
        public var bits: Int
        public var field: String? = nil
    }

    /// Secrets that are the same (two or more): each one's item and field.
    public struct Reused: Sendable, Equatable {
        public var ids: [String]
        public var titles: [String]
        public var fields: [String?] = []
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
        public var field: String? = nil
    }

    /// One secret checked: an item's password, or a login's hidden custom field.
    struct Secret {
        var item: Item
        var field: String?
        var value: String
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
        let sorted = items.sorted { ($0.title.lowercased(), $0.id) < ($1.title.lowercased(), $1.id) }
        let secrets = sorted.flatMap(Self.secrets(of:))
        var report = HealthReport()
        let oldBefore = Timestamp(milliseconds: now.milliseconds - Int64(oldAfter * 1000))
        for secret in secrets {
            let item = secret.item
            let bits = PassphraseStrength.estimate(secret.value).bits
            if bits < PassphraseStrength.weakBelowBits {
                report.weak.append(Weak(id: item.id, title: item.title, bits: bits, field: secret.field))
            }
            if secret.field == nil, item.passwordChanged < oldBefore {
                report.old.append(Old(id: item.id, title: item.title, changed: item.passwordChanged))
            }
            if let count = try breaches?.count(of: secret.value) {
                report.breached.append(Breached(id: item.id, title: item.title, count: count, field: secret.field))
            }
        }
        report.reused = reusedGroups(secrets)
        return report
    }

    /// The item's password, and a login's hidden custom fields, those that are not empty.
    static func secrets(of item: Item) -> [Secret] {
        var found: [Secret] = []
        if !item.entry.password.isEmpty { found.append(Secret(item: item, field: nil, value: item.entry.password)) }
        guard item.entry.kind == Entry.loginKind else { return found }
        for field in item.entry.custom where field.fieldType == .hidden && !field.value.isEmpty {
            found.append(Secret(item: item, field: field.label, value: field.value))
        }
        return found
    }

    /// Groups of items whose passwords are equal, compared by HMAC-SHA256 under a key made for
    /// this run: the grouping holds only MACs, and they mean nothing once the key is gone.
    static func reusedGroups(_ secrets: [Secret]) -> [Reused] {
        let key = SymmetricKey(size: .bits256)
        var groups: [Data: [Secret]] = [:]
        var order: [Data] = []
        for secret in secrets {
            let mac = Data(HMAC<SHA256>.authenticationCode(for: Data(secret.value.utf8), using: key))
            if groups[mac] == nil { order.append(mac) }
            groups[mac, default: []].append(secret)
        }
        return order.compactMap { mac in
            guard let group = groups[mac], group.count > 1 else { return nil }
            return Reused(ids: group.map(\.item.id), titles: group.map(\.item.title), fields: group.map(\.field))
        }
    }
}
