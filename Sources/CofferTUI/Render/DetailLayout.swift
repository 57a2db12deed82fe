import CofferCore
import Foundation

/// The lines of an item's detail page, before scrolling: shared by `Render` (to draw them) and
/// `Update` (to know how far the page scrolls).
enum DetailLayout {
    struct Line: Sendable, Equatable {
        var label: String
        var text: String
        var style: Style
        /// Drawn from the left margin rather than in the value column.
        var isHeading: Bool

        init(_ label: String, _ text: String, style: Style = .plain, isHeading: Bool = false) {
            self.label = label
            self.text = text
            self.style = style
            self.isHeading = isHeading
        }
    }

    static let mask = "••••••••"
    static let labelWidth = 11

    /// `now` draws the live TOTP code and its countdown.
    static func lines(for row: ScreenItem, state: ScreenState, detail: DetailState, now: Date) -> [Line] {
        let zone = state.settings.timeZone
        let valueWidth = max(10, state.size.width - labelWidth - 4)
        var lines = [Line("", row.displayTitle, style: .bold, isHeading: true)]
        var badges: [String] = []
        if row.hasConflict { badges.append("⚠ conflict waits for the merge") }
        if row.needsReview { badges.append("⚑ merged, press v to review") }
        if row.hasLocalChange { badges.append("↑ not yet synced") }
        if row.isDisabled { badges.append("⊘ disabled") }
        if !badges.isEmpty { lines.append(Line("", badges.joined(separator: "  "), style: .accent, isHeading: true)) }
        if let item = row.item, let health = state.health?.row(for: item) {
            let text = "⚠ password " + HealthFindings.describe(health.problems, in: zone) + "  (H lists all)"
            lines.append(Line("", text, style: .warning, isHeading: true))
        }
        lines.append(Line("", ""))
        guard let item = row.item else {
            let message: String
            let style: Style
            switch row.content {
            case .corrupt(let reason):
                message = "This item cannot be read: \(reason)"
                style = .error
            default:
                message = "This item is waiting for its key from another device. It opens once that device has "
                    + "unlocked and both have synced."
                style = .dimmed
            }
            for part in TextLayout.wrapped(message, to: max(10, state.size.width - 4)) {
                lines.append(Line("", part, style: style, isHeading: true))
            }
            return lines
        }
        func add(_ label: String, _ text: String, style: Style = .plain) {
            let wrapped = TextLayout.wrapped(text, to: valueWidth)
            for (index, part) in wrapped.enumerated() {
                lines.append(Line(index == 0 ? label : "", part, style: style))
            }
        }
        add("Username", item.entry.username.isEmpty ? "—" : item.entry.username)
        if item.entry.password.isEmpty {
            add("Password", "—")
        } else if detail.isPasswordRevealed {
            add("Password", item.entry.password, style: .warning)
        } else {
            add("Password", mask + "  (r reveals)", style: .plain)
        }
        if let line = totpLine(item, now: now) {
            add("TOTP", line.text, style: line.style)
            if let warning = TOTPClock.warning(offsetMilliseconds: state.summary.clockSkewMilliseconds ?? 0) {
                add("", "⚠ " + warning, style: .warning)
            }
        }
        if item.origins.isEmpty { add("Origins", "—") }
        for (index, origin) in item.origins.enumerated() { add(index == 0 ? "Origins" : "", origin) }
        add("Tags", item.tags.isEmpty ? "—" : item.tags.joined(separator: ", "))
        add("Notes", item.entry.notes.isEmpty ? "—" : item.entry.notes)
        add("Disabled", item.disabled ? "yes" : "no")
        add("Created", Format.dateTime(item.created, in: zone))
        add("Modified", Format.dateTime(item.modified, in: zone))
        add("Last used", item.lastUsed.map { Format.dateTime($0, in: zone) } ?? "never")
        lines.append(Line("", ""))
        lines.append(Line("History", item.history.isEmpty ? "no changes yet"
                          : "\(Format.count(item.history.count, "change")), newest first", style: .bold))
        for entry in item.history {
            add("", Format.dateTime(entry.created, in: zone) + "  " + describe(entry, revealed: detail.isPasswordRevealed))
        }
        return lines
    }

    /// The current code in two groups and the seconds it stays valid; nil without a secret. The code
    /// is shown openly: it is good for seconds, and reading it is what the page is for.
    static func totpLine(_ item: Item, now: Date) -> Line? {
        do {
            guard let totp = try item.totpGenerator() else { return nil }
            let code = totp.code(at: now)
            let half = code.index(code.startIndex, offsetBy: code.count / 2)
            let seconds = totp.secondsLeft(at: now)
            return Line("", "\(code[..<half]) \(code[half...])  \(seconds) s left  (T copies)",
                        style: seconds <= 5 ? .warning : .bold)
        } catch {
            return Line("", error.description, style: .error)
        }
    }

    /// What an edit changed. The patch holds the values from before it, so it names the fields and
    /// shows the old values (a password's only when revealed).
    static func describe(_ entry: HistoryEntry, revealed: Bool) -> String {
        guard let members = entry.patch.objectValue, !members.isEmpty else { return "no change recorded" }
        return members.keys.sorted().map { name in
            let old = members[name]
            let isSecret = ItemField.isSecret(name)
            switch old {
            case .string(let text)? where !isSecret || revealed:
                let shown = TextLayout.truncated(TextLayout.singleLine(text), to: 24)
                return text.isEmpty ? "\(name) (was empty)" : "\(name) (was “\(shown)”)"
            case .null?:
                return "\(name) (was not set)"
            default:
                return name
            }
        }.joined(separator: ", ")
    }
}
