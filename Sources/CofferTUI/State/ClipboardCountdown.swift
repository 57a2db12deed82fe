import Foundation

/// A value we put on the clipboard and when we clear it (the status bar counts down).
struct ClipboardCountdown: Sendable, Equatable {
    enum Field: String, Sendable, Equatable {
        case password, username, origin
        case totp = "TOTP code"
    }

    var field: Field
    var until: Date

    init(field: Field, until: Date) {
        self.field = field
        self.until = until
    }
}
