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
        /// The field this line is the first line of (the cursor rests on it).
        var field: DetailField?

        init(_ label: String, _ text: String, style: Style = .plain, isHeading: Bool = false, field: DetailField? = nil) {
            self.label = label
            self.text = text
            self.style = style
            self.isHeading = isHeading
            self.field = field
        }
    }

    static let mask = "••••••••"
    /// The label column's width when every label fits (a login's); longer labels widen it up to
    /// `widestLabelColumn`, and are cut beyond.
    static let labelWidth = 11
    static let widestLabelColumn = 20

    /// The label column's width for `item`: its longest label and two spaces, within
    /// `labelWidth...widestLabelColumn`.
    static func labelWidth(for item: Item?) -> Int {
        guard let item else { return labelWidth }
        let longest = DetailField.fields(of: item).map { DisplayWidth.of($0.label(in: item)) }.max() ?? 0
        return min(widestLabelColumn, max(labelWidth, longest + 2))
    }

    /// `now` draws the live TOTP codes and their countdown. Every text from the item goes through
    /// `TerminalText` (it may come from another device).
    static func lines(for row: ScreenItem, state: ScreenState, detail: DetailState, now: Date) -> [Line] {
        let zone = state.settings.timeZone
        let valueWidth = max(10, state.size.width - labelWidth(for: row.item) - 4)
        let title = row.item.map { TerminalText.line($0.title) } ?? row.displayTitle
        var lines = [Line("", title, style: .bold, isHeading: true)]
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
        func add(_ label: String, _ text: String, style: Style = .plain, field: DetailField? = nil) {
            let wrapped = TextLayout.wrapped(text, to: valueWidth)
            for (index, part) in wrapped.enumerated() {
                lines.append(Line(index == 0 ? label : "", part, style: style, field: index == 0 ? field : nil))
            }
        }
        let isLogin = item.entry.kind == Entry.loginKind
        if !isLogin {
            let known = ItemKind.named(item.entry.kind) != nil
            add("Kind", ItemKind.shownLabel(ofKindNamed: item.entry.kind) + (known ? "" : "  (from a newer version: shown as text)"))
        }
        // "(r reveals)" once, on the first masked line.
        var saidHowToReveal = false
        let fields = DetailField.fields(of: item)
        for field in fields {
            let label = field.label(in: item)
            // A login says it has no origin; other kinds leave the line out.
            if field == .tags, item.origins.isEmpty, isLogin { add("Origins", "—") }
            if field.isTOTP(in: item) {
                let line = totpLine(field, of: item, now: now)
                add(label, line.text, style: line.style, field: field)
                if let warning = TOTPClock.warning(offsetMilliseconds: state.summary.clockSkewMilliseconds ?? 0) {
                    add("", "⚠ " + warning, style: .warning)
                }
                continue
            }
            if let file = field.attachment(in: item) {
                let isHere = state.arrivedFiles.contains(file.id)
                add(label, TerminalText.line(file.name) + "  " + Format.size(file.size)
                        + (isHere ? "" : "  (has not arrived from the server yet)"),
                    style: isHere ? .plain : .dimmed, field: field)
                continue
            }
            let value = field.storedValue(in: item) ?? ""
            if value.isEmpty {
                add(label, "—", field: field)
            } else if field.isSecret(in: item), !detail.isRevealed {
                add(label, mask + (saidHowToReveal ? "" : "  (r reveals)"), field: field)
                saidHowToReveal = true
            } else if field.isSecret(in: item) {
                add(label, TerminalText.line(value), style: .warning, field: field)
            } else if field == .notes {
                add(label, TerminalText.lines(value).replacingOccurrences(of: "\t", with: " "), field: field)
            } else {
                add(label, TerminalText.line(value), field: field)
            }
        }
        add("Disabled", item.disabled ? "yes" : "no")
        add("Created", Format.dateTime(item.created, in: zone))
        add("Modified", Format.dateTime(item.modified, in: zone))
        add("Last used", item.lastUsed.map { Format.dateTime($0, in: zone) } ?? "never")
        lines.append(Line("", ""))
        lines.append(Line("History", item.history.isEmpty ? "no changes yet"
                          : "\(Format.count(item.history.count, "change")), newest first", style: .bold))
        for entry in item.history {
            add("", Format.dateTime(entry.created, in: zone) + "  " + describe(entry, revealed: detail.isRevealed))
        }
        return lines
    }

    /// A TOTP field's current code in two groups and the seconds it stays valid, or why there is
    /// none. The code is shown openly: it is good for seconds, and reading it is what the page is for.
    static func totpLine(_ field: DetailField, of item: Item, now: Date) -> Line {
        do {
            guard let totp = try field.totp(in: item) else { return Line("", "—") }
            let code = totp.code(at: now)
            let half = code.index(code.startIndex, offsetBy: code.count / 2)
            let seconds = totp.secondsLeft(at: now)
            let copies = field == .entry("totp") ? "T copies" : "↵ copies"
            return Line("", "\(code[..<half]) \(code[half...])  \(seconds) s left  (\(copies))",
                        style: seconds <= 5 ? .warning : .bold)
        } catch {
            return Line("", TerminalText.line(error.description), style: .error)
        }
    }

    /// What an edit changed. The patch holds the values from before it, so it names the fields and
    /// shows the old values (a secret's only when revealed).
    static func describe(_ entry: HistoryEntry, revealed: Bool) -> String {
        let tags = entry.tags.map { tags in
            tags.isEmpty ? "tags (were none)" : "tags (were “\(TextLayout.truncated(TerminalText.line(tags.joined(separator: ", ")), to: 24))”)"
        }
        guard let members = entry.patch.objectValue, !members.isEmpty else { return tags ?? "no change recorded" }
        return (members.keys.sorted().map { member in
            let old = members[member]
            let isSecret = ItemField.isSecret(member)
            let name = TerminalText.line(member)
            switch old {
            case .string(let text)? where !isSecret || revealed:
                let shown = TextLayout.truncated(TerminalText.line(text), to: 24)
                return text.isEmpty ? "\(name) (was empty)" : "\(name) (was “\(shown)”)"
            case .null?:
                return "\(name) (was not set)"
            default:
                return name
            }
        } + [tags].compactMap { $0 }).joined(separator: ", ")
    }
}
