import CofferCore
import Foundation

/// The conflict review page: per merged item, each field where the two versions differ.
extension Render {
    static func drawReview(_ state: ScreenState, review: ReviewState, body: Body, into grid: inout Grid) {
        let nameWidth = 10
        let valueWidth = max(8, (body.width - nameWidth - 8) * 30 / 100)
        let keptWidth = body.width - nameWidth - 2 * valueWidth - 8
        let columns = [4, 4 + nameWidth + 1, 4 + nameWidth + valueWidth + 2, 4 + nameWidth + 2 * valueWidth + 3]
        grid.write("What the merge kept; “only here/there”: one device changed it. Space swaps.",
                   x: 1, y: body.top, style: .dimmed, maxWidth: body.width - 2)
        let header = Style(isBold: true, isUnderlined: true)
        grid.fill(y: body.top + 1, style: header)
        for (title, x) in zip(["Field", "This device", "Other device", "Kept"], columns) {
            grid.write(title, x: x, y: body.top + 1, style: header)
        }
        // Lines: an item heading, then its rows; scrolled so the cursor's row shows.
        let rows = review.rows
        var lines: [(rowIndex: Int?, reviewIndex: Int)] = []
        for (index, row) in rows.enumerated() {
            if lines.last?.reviewIndex != row.review { lines.append((nil, row.review)) }
            lines.append((index, row.review))
        }
        let room = body.bottom - (body.top + 2)
        let cursorLine = lines.firstIndex { $0.rowIndex == review.cursor } ?? 0
        let start = max(0, min(cursorLine - room + 1, lines.count - room))
        for (offset, line) in lines.dropFirst(max(0, start)).prefix(room).enumerated() {
            let y = body.top + 2 + offset
            guard let index = line.rowIndex else {
                let item = review.reviews[line.reviewIndex]
                let saving = review.saving.contains(item.itemID) ? "  saving…" : ""
                grid.write("⚑ " + TerminalText.line(item.title) + saving, x: 1, y: y, style: .bold, maxWidth: body.width - 2)
                continue
            }
            let isCursor = index == review.cursor
            let style = isCursor ? Style.reversed : .plain
            if isCursor { grid.fill(y: y, style: style) }
            grid.write(isCursor ? "▸" : " ", x: 2, y: y, style: style)
            guard let fieldIndex = rows[index].field else {
                grid.write("No field differs (only its last use or history): a accepts the merge.",
                           x: columns[0], y: y, style: style, maxWidth: body.width - columns[0] - 1)
                continue
            }
            let field = review.reviews[rows[index].review].fields[fieldIndex]
            /// A value as the row shows it: masked when secret, "(none)" where a side has no such
            /// custom field, through `TerminalText` (the other device's values are strangers' bytes).
            func shown(_ choice: FieldConflict.Choice) -> String {
                if field.isAbsent(on: choice) { return "(none)" }
                let value = field.value(of: choice)
                if field.isSecret, !review.isRevealed { return value.isEmpty ? "—" : DetailLayout.mask }
                return value.isEmpty ? "—" : TerminalText.line(value)
            }
            let values = [field.label,
                          stamped(shown(.local), field.merged.localStamp, other: field.merged.remoteStamp, in: state.settings.timeZone),
                          stamped(shown(.remote), field.merged.remoteStamp, other: field.merged.localStamp, in: state.settings.timeZone),
                          kept(field, otherSide: review.reviews[rows[index].review].otherSide(field.merged.remoteStamp),
                               shown: shown)]
            for (value, (x, width)) in zip(values, zip(columns, [nameWidth, valueWidth, valueWidth, keptWidth])) {
                grid.write(TextLayout.truncated(value, to: width), x: x, y: y, style: style, maxWidth: width)
            }
            let chosenColumn = field.chosen == .local ? 1 : (field.chosen == .remote ? 2 : nil)
            if let chosenColumn {
                // The kept value in bold, so the choice reads across the row.
                grid.restyle(x: columns[chosenColumn], y: y, width: valueWidth) {
                    $0.isBold = true
                }
            }
        }
    }

    /// A value changed on both sides, after when that side changed it (the Airmail journal: the
    /// later won): to the second, the date only when the two sides' dates differ, and first, so a
    /// long value is what is cut. Both read "2026-12-07 01:…" when the time came after the value
    /// and was cut at the minute, and the times were what told the two apart.
    static func stamped(_ value: String, _ stamp: FieldStamp?, other: FieldStamp?, in zone: TimeZone) -> String {
        guard let stamp else { return value }
        let day = Format.date(stamp.at, in: zone)
        let sameDay = other.map { Format.date($0.at, in: zone) == day } ?? true
        let time = Format.clockTime(stamp.at.date, in: zone)
        return (sameDay ? time : String(day.dropFirst(5)) + " " + time) + " " + value
    }

    /// The Kept column: which value stays, and whether one device alone changed the field.
    /// `otherSide` names the remote side's maker ("this device, another edit", a device's name,
    /// "another device"); nil says "other device".
    static func kept(_ field: FieldConflict, otherSide: String? = nil, shown: (FieldConflict.Choice) -> String) -> String {
        let isSwapped = field.chosen != field.mergeChoice
        let oneSide: String? = switch field.changedOn {
        case .both: nil
        case .local: "only here"
        case .remote: "only there"
        }
        let yours = isSwapped ? " (yours)" : ""
        // Both changed it: the merge kept the later change (the Airmail journal), when it knows the times.
        let newer = field.changedOn == .both && field.merged.localStamp != nil ? "newer" : nil
        switch field.chosen {
        case .combined:
            return (oneSide ?? "both") + ": " + shown(.combined) + yours
        case .local, .remote:
            let side = field.chosen == .local ? "this device" : (otherSide ?? "other device")
            if isSwapped { return side + yours }
            return (oneSide ?? newer).map { "\(side) (\($0))" } ?? side
        }
    }
}
