import CofferCore
import Foundation

/// How the screen behaves, from the command line or configuration.
public struct ScreenOptions: Sendable {
    /// Lock after this many seconds without a key press; 0 never locks.
    var autoLockSeconds: TimeInterval
    /// Clear a copied value after this many seconds.
    var clipboardSeconds: TimeInterval
    /// Argon2id parameters for a vault created on first run; nil calibrates (about 0.5 s).
    var kdf: KDFParameters?
    var timeZone: TimeZone
    /// Told of frames, keys and unlocks for `make bench`; nil (the usual case) costs one check per frame.
    var timing: (any ScreenTimingObserver)?
    /// `config.toml`'s `[keys]`, `[colors]` and `new-item-kind`.
    public var keys: KeyMap = .standard
    public var colors = ScreenColors()
    public var newItemKind: ItemKind = .login

    public init(autoLockSeconds: TimeInterval = 300, clipboardSeconds: TimeInterval = 10, kdf: KDFParameters? = nil,
                timeZone: TimeZone = .current, timing: (any ScreenTimingObserver)? = nil) {
        self.autoLockSeconds = autoLockSeconds
        self.clipboardSeconds = clipboardSeconds
        self.kdf = kdf
        self.timeZone = timeZone
        self.timing = timing
    }

    var settings: ScreenSettings {
        ScreenSettings(autoLockSeconds: autoLockSeconds, clipboardSeconds: clipboardSeconds, timeZone: timeZone,
                       keys: keys, newItemKind: newItemKind)
    }
}
