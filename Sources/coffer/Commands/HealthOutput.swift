import Foundation
import CofferCore

/// `coffer health`'s two forms: sections of text, or the JSON object the README documents.
enum HealthOutput {
    /// `{"weak":[{id,title,bits}], "reused":[{ids,titles}], "old":[{id,title,changed}],
    /// "breached":[{id,title,count}]}`; `breached` is null when no list was given (not checked is
    /// not the same as clean).
    /// A finding in a login's hidden custom field carries `field` (its label); one in the password none.
    static func json(_ report: HealthReport, breachesChecked: Bool) -> [String: Any] {
        func labelled(_ object: [String: Any], _ field: String?) -> [String: Any] {
            var object = object
            if let field { object["field"] = field }
            return object
        }
        return [
            "weak": report.weak.map { labelled(["id": $0.id, "title": $0.title, "bits": $0.bits], $0.field) },
            "reused": report.reused.map { group -> [String: Any] in
                var object: [String: Any] = ["ids": group.ids, "titles": group.titles]
                if group.fields.contains(where: { $0 != nil }) { object["fields"] = group.fields.map { $0 as Any? ?? NSNull() } }
                return object
            },
            "old": report.old.map { ["id": $0.id, "title": $0.title, "changed": $0.changed.iso8601] },
            "breached": breachesChecked
                ? report.breached.map { labelled(["id": $0.id, "title": $0.title, "count": $0.count], $0.field) } as Any
                : NSNull(),
        ]
    }

    /// "Title", or "Title · Label" for a custom field, each through `TerminalText.line`.
    private static func named(_ title: String, _ field: String?) -> String {
        TerminalText.line(title) + (field.map { " · " + TerminalText.line($0) } ?? "")
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
                report.weak.map { [named($0.title, $0.field), "\($0.bits) bits", $0.id] })
        section("Reused passwords (groups of items sharing one)",
                report.reused.map { group in
                    [zip(group.titles, group.fields + Array(repeating: nil, count: max(0, group.titles.count - group.fields.count)))
                        .map { named($0.0, $0.1) }.joined(separator: ", "), group.ids.joined(separator: " ")]
                })
        section("Old passwords (unchanged for over a year)",
                report.old.map { [line($0.title), "changed \($0.changed.iso8601.prefix(10))", $0.id] })
        if let breachList {
            section("Breached passwords (in \(line(breachList)))",
                    report.breached.map { [named($0.title, $0.field), "seen \($0.count) times", $0.id] })
        } else {
            lines += ["", "Breached passwords: not checked (give --breached FILE, a Pwned Passwords SHA-1 list)"]
        }
        return lines
    }
}
