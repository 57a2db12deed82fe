import CofferSync
import Foundation

/// The status bar's words: lock, sync state, last sync, counts, clipboard countdown.
///
/// Each segment has a long and a short form; `fit` shortens from the right until the bar fits.
enum StatusBar {
    struct Segment: Equatable {
        var full: String
        var short: String
    }

    static func segments(_ state: ScreenState, now: Date) -> [Segment] {
        var segments = [
            state.isLocked ? Segment(full: "🔒 locked", short: "🔒") : Segment(full: "🔓 unlocked", short: "🔓"),
            syncSegment(state, now: now),
        ]
        guard state.hasVault else { return segments }
        if let warning = state.summary.clockWarning {
            segments.append(Segment(full: "⏱ \(warning)", short: "⏱ clock"))
        }
        let age = Format.age(of: state.sync.lastSync, now: now)
        segments.append(state.sync.lastSync == nil ? Segment(full: "never synced", short: "never")
                                                   : Segment(full: "synced \(age)", short: age))
        segments += countSegments(state)
        if let clipboard = state.clipboard {
            let seconds = max(0, Int(clipboard.until.timeIntervalSince(now).rounded(.up)))
            segments.append(Segment(full: "📋 clears in \(seconds) s", short: "📋 \(seconds) s"))
        }
        return segments
    }

    /// Pending item changes, conflicts (⚠) and merges to review (⚑); "counting…" until the first
    /// count. A warning sign is shown only when there is something to warn of: "⚠ 0 conflicts"
    /// read as trouble where there was none.
    private static func countSegments(_ state: ScreenState) -> [Segment] {
        guard state.summary.isCounted else { return [Segment(full: "counting…", short: "…")] }
        let conflicts = state.summary.conflicts
        var segments = [Segment(full: "\(state.summary.pending) pending", short: "↑\(state.summary.pending)")]
        if conflicts > 0 {
            segments.append(Segment(full: "⚠ \(Format.count(conflicts, "conflict"))", short: "⚠\(conflicts)"))
        }
        let unreviewed = state.unreviewedCount
        if unreviewed > 0 {
            segments.append(Segment(full: "⚑ \(unreviewed) to review", short: "⚑\(unreviewed)"))
        }
        return segments
    }

    static func syncSegment(_ state: ScreenState, now: Date) -> Segment {
        guard state.hasVault else { return Segment(full: "no vault yet", short: "no vault") }
        guard state.hasAccount else { return Segment(full: "sync off: no account", short: "sync off") }
        if state.sync.running != nil {
            let spin = Render.spinner(since: .init(timeIntervalSince1970: 0), now: now)
            guard let progress = state.sync.progress else { return Segment(full: "\(spin) syncing", short: "\(spin) sync") }
            let count = progress.total > 0 ? " \(progress.done)/\(progress.total)" : ""
            return Segment(full: "\(spin) syncing: \(progress.step.rawValue) \(progress.collection)\(count)",
                           short: "\(spin) \(progress.step.rawValue)\(count)")
        }
        if let until = state.scheduler.backoffUntil, until > now {
            let time = Format.clockTime(until, in: state.settings.timeZone)
            return Segment(full: "backing off until \(time)", short: "wait → \(time)")
        }
        if let error = state.sync.lastError {
            return Segment(full: error.rawValue, short: error.rawValue)
        }
        return Segment(full: "sync idle", short: "idle")
    }

    static let separator = " │ "

    /// The segments joined, shortened until they fit `width`: the lock first (its icon says it
    /// all), then from the last segment back.
    static func fit(_ segments: [Segment], width: Int) -> String {
        var forms = segments.map(\.full)
        func joined() -> String { forms.joined(separator: separator) }
        let order = Array(segments.indices.prefix(1)) + segments.indices.dropFirst().reversed()
        for index in order where DisplayWidth.of(joined()) > width {
            forms[index] = segments[index].short
        }
        return TextLayout.truncated(joined(), to: width)
    }
}
