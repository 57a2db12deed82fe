import Foundation

/// The screen's tunables that `update` and `render` read (from `ScreenOptions` at start).
struct ScreenSettings: Sendable, Equatable {
    /// Lock after this long without a key press.
    var autoLockSeconds: TimeInterval
    /// Clear a copied value after this long.
    var clipboardSeconds: TimeInterval
    /// Times are shown in this zone (UTC in tests).
    var timeZone: TimeZone

    init(autoLockSeconds: TimeInterval = 300, clipboardSeconds: TimeInterval = 10,
                timeZone: TimeZone = .current) {
        self.autoLockSeconds = autoLockSeconds
        self.clipboardSeconds = clipboardSeconds
        self.timeZone = timeZone
    }
}
