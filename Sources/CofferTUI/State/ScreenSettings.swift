import CofferCore
import Foundation

/// The screen's tunables that `update` and `render` read (from `ScreenOptions` at start).
struct ScreenSettings: Sendable, Equatable {
    /// Lock after this long without a key press.
    var autoLockSeconds: TimeInterval
    /// Clear a copied value after this long.
    var clipboardSeconds: TimeInterval
    /// Times are shown in this zone (UTC in tests).
    var timeZone: TimeZone
    /// The directory the screen was started in: `w` offers to save a file there, under its name.
    var directory: String
    /// The key table's keys, as `config.toml` remaps them.
    var keys: KeyMap
    /// The kind `n` opens a form of (`new-item-kind` in `config.toml`).
    var newItemKind: ItemKind

    init(autoLockSeconds: TimeInterval = 300, clipboardSeconds: TimeInterval = 10,
                timeZone: TimeZone = .current, directory: String = FileManager.default.currentDirectoryPath,
         keys: KeyMap = .standard, newItemKind: ItemKind = .login) {
        self.autoLockSeconds = autoLockSeconds
        self.clipboardSeconds = clipboardSeconds
        self.timeZone = timeZone
        self.directory = directory
        self.keys = keys
        self.newItemKind = newItemKind
    }
}
