import Foundation

/// How far this device's clock is from the server's (the Airmail journal), learnt from the `Date` header
/// every answer carries.
///
/// An answer sent at t₀ and received at t₁ (device clock) with `Date: D` (whole seconds) says the
/// offset (server − device) lies in [D − t₁, D + 1 s − t₀]. The answers of one sync narrow that
/// interval by intersection; one that does not overlap means the device clock was stepped, and the
/// estimate starts again from it. Never `last_modified`: any writer can push it forward.
public struct ClockSkew: Sendable, Equatable {
    /// The offset lies in `low...high` milliseconds.
    public var low: Int64
    public var high: Int64
    /// When it was measured, by the device clock.
    public var measured: Timestamp

    /// Beyond this the device says its clock is off (the Airmail journal's five minutes).
    public static let warningThreshold: Int64 = 5 * 60 * 1000

    public init(low: Int64, high: Int64, measured: Timestamp) {
        self.low = low
        self.high = high
        self.measured = measured
    }

    /// What one answer says.
    public init(serverDate: Timestamp, sent: Timestamp, received: Timestamp) {
        let server = serverDate.milliseconds
        self.init(low: server - received.milliseconds, high: server + 1000 - sent.milliseconds, measured: received)
    }

    /// The estimate: the value of the interval nearest zero. Positive when the device is behind the
    /// server. Not the middle: `Date` has whole seconds, so two devices on the same correct clock got
    /// middles up to a second apart, and edits made less than a second apart were ordered either way
    /// (a crash-point run found it). A clock the answers cannot prove wrong is left uncorrected.
    public var offsetMilliseconds: Int64 { min(max(0, low), high) }

    /// How far the true offset may be from `offsetMilliseconds`.
    public var uncertaintyMilliseconds: Int64 {
        let offset = offsetMilliseconds
        return max(offset - low, high - offset)
    }

    /// This estimate narrowed by `sample`: their intersection, or `sample` alone when they do not
    /// overlap (the device clock was stepped since).
    public func narrowed(by sample: ClockSkew) -> ClockSkew {
        let low = max(self.low, sample.low)
        let high = min(self.high, sample.high)
        guard low <= high else { return sample }
        return ClockSkew(low: low, high: high, measured: max(measured, sample.measured))
    }

    /// `time` (device clock) as the server's clock reads it.
    public func corrected(_ time: Timestamp) -> Timestamp {
        Timestamp(milliseconds: time.milliseconds &+ offsetMilliseconds)
    }

    /// The earliest the server's clock can read at `time` (device clock): never ahead of it.
    public func earliest(_ time: Timestamp) -> Timestamp {
        Timestamp(milliseconds: time.milliseconds &+ low)
    }

    /// The status line's warning when the offset is past the threshold, e.g. "clock 7 min behind
    /// the server (corrected)"; nil otherwise.
    public var warning: String? {
        let offset = offsetMilliseconds
        guard abs(offset) > Self.warningThreshold else { return nil }
        let minutes = (abs(offset) + 30_000) / 60_000
        let amount = minutes >= 120 ? "\(minutes / 60) h" : "\(minutes) min"
        return "clock \(amount) \(offset > 0 ? "behind" : "ahead of") the server (corrected)"
    }

    // MARK: Stored in `meta`

    /// `low high measured` (milliseconds, milliseconds, ISO-8601).
    public var stored: String { "\(low) \(high) \(measured.iso8601)" }

    public init?(stored: String) {
        let parts = stored.split(separator: " ")
        guard parts.count == 3, let low = Int64(parts[0]), let high = Int64(parts[1]), low <= high,
              let measured = Timestamp(iso8601: String(parts[2])) else { return nil }
        self.init(low: low, high: high, measured: measured)
    }
}

extension VaultDatabase {
    /// The offset the last sync measured (any process's), or nil before the first.
    public var clockSkew: ClockSkew? {
        (try? meta(.clockSkew)).flatMap { $0.flatMap(ClockSkew.init(stored:)) }
    }

    /// Now by the server's clock, as far as the last sync could tell (TOTP codes, times written).
    public func correctedNow(_ deviceNow: Date = Date()) -> Date {
        clockSkew?.corrected(Timestamp(deviceNow)).date ?? deviceNow
    }
}
