import CofferCore
import Foundation

/// The last health check of the unlocked vault (architecture §13), item by item: what the Health page
/// lists and the detail page's badge line shows. Made off the input loop (zxcvbn over every
/// password takes a while on a large vault) and kept until the next check.
struct HealthFindings: Sendable, Equatable {
    enum Problem: Sendable, Equatable {
        /// zxcvbn's estimate, below `PassphraseStrength.weakBelowBits`.
        case weak(bits: Int)
        /// The same password is in this many other items.
        case reused(others: Int)
        /// Unchanged since then, over `HealthReport.oldAfter` ago.
        case old(since: Timestamp)
    }

    struct Row: Sendable, Equatable {
        var itemID: String
        var title: String
        var problems: [Problem]
        /// The password's change time when checked: after a later change the row no longer holds.
        var passwordChanged: Timestamp
    }

    /// Items with at least one problem: the most problems first, then by title.
    private(set) var rows: [Row]
    /// Items with a password that were checked.
    private(set) var checkedCount: Int
    private var rowIndex: [String: Int]

    init(report: HealthReport, checked items: [Item]) {
        var problems: [String: [Problem]] = [:]
        for weak in report.weak { problems[weak.id, default: []].append(.weak(bits: weak.bits)) }
        for group in report.reused {
            for id in group.ids { problems[id, default: []].append(.reused(others: group.ids.count - 1)) }
        }
        for old in report.old { problems[old.id, default: []].append(.old(since: old.changed)) }
        let checked = items.filter { !$0.entry.password.isEmpty }
        rows = checked.compactMap { item in
            problems[item.id].map { Row(itemID: item.id, title: item.title, problems: $0, passwordChanged: item.passwordChanged) }
        }.sorted { ($1.problems.count, $0.title.lowercased(), $0.itemID) < ($0.problems.count, $1.title.lowercased(), $1.itemID) }
        checkedCount = checked.count
        rowIndex = Dictionary(rows.enumerated().map { ($1.itemID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Checks `items` at `now` (the server-corrected clock).
    static func check(_ items: [Item], now: Date) throws -> HealthFindings {
        HealthFindings(report: try HealthReport.check(items, now: Timestamp(now)), checked: items)
    }

    /// The item's row, if it had a problem and its password has not changed since the check.
    func row(for item: Item) -> Row? {
        guard let index = rowIndex[item.id], rows[index].passwordChanged == item.passwordChanged else { return nil }
        return rows[index]
    }

    /// "weak (23 bits) · reused in 2 other items · unchanged since 3 May 2024".
    static func describe(_ problems: [Problem], in zone: TimeZone) -> String {
        problems.map { problem in
            switch problem {
            case .weak(let bits): return "weak (~\(bits) bits)"
            case .reused(let others): return "reused in \(Format.count(others, "other item"))"
            case .old(let since): return "unchanged since \(Format.date(since, in: zone))"
            }
        }.joined(separator: " · ")
    }
}
