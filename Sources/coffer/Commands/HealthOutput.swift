import Foundation
import CofferCore

/// `coffer health`'s two forms: sections of text, or the JSON object the README documents.
enum HealthOutput {
    /// `{"weak":[{id,title,bits}], "reused":[{ids,titles}], "old":[{id,title,changed}],
    /// "breached":[{id,title,count}]}`; `breached` is null when no list was given (not checked is
    /// not the same as clean).
    static func json(_ report: HealthReport, breachesChecked: Bool) -> [String: Any] {
        [
            "weak": report.weak.map { ["id": $0.id, "title": $0.title, "bits": $0.bits] as [String: Any] },
            "reused": report.reused.map { ["ids": $0.ids, "titles": $0.titles] },
            "old": report.old.map { ["id": $0.id, "title": $0.title, "changed": $0.changed.iso8601] },
            "breached": breachesChecked
                ? report.breached.map { ["id": $0.id, "title": $0.title, "count": $0.count] as [String: Any] } as Any
                : NSNull(),
        ]
    }

    /// Titles and the list's file name shown through `TerminalText.line`.
    static func text(_ report: HealthReport, breachList: String?) -> [String] {
        let line = TerminalText.line
        var lines: [String] = []
        func section(_ title: String, _ rows: [[String]]) {
            if !lines.isEmpty { lines.append("") }
            lines.append("\(title): \(rows.isEmpty ? "none" : "\(rows.count)")")
            lines += Table.format(rows).map { "  " + $0 }
        }
        section("Weak passwords (zxcvbn: under \(PassphraseStrength.weakBelowBits) bits)",
                report.weak.map { [line($0.title), "\($0.bits) bits", $0.id] })
        section("Reused passwords (groups of items sharing one)",
                report.reused.map { [$0.titles.map(line).joined(separator: ", "), $0.ids.joined(separator: " ")] })
        section("Old passwords (unchanged for over a year)",
                report.old.map { [line($0.title), "changed \($0.changed.iso8601.prefix(10))", $0.id] })
        if let breachList {
            section("Breached passwords (in \(line(breachList)))",
                    report.breached.map { [line($0.title), "seen \($0.count) times", $0.id] })
        } else {
            lines += ["", "Breached passwords: not checked (give --breached FILE, a Pwned Passwords SHA-1 list)"]
        }
        return lines
    }
}
