import Foundation

/// A value we put on the clipboard and when we clear it (the status bar counts down).
public struct ClipboardCountdown: Sendable, Equatable {
    public enum Field: String, Sendable, Equatable {
        case password, username, origin
        case totp = "TOTP code"
    }

    public var field: Field
    public var until: Date

    public init(field: Field, until: Date) {
        self.field = field
        self.until = until
    }
}
