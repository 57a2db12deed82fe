import Foundation

/// A value we put on the clipboard and when we clear it (the status bar counts down).
struct ClipboardCountdown: Sendable, Equatable {
    /// What was copied, as a notice names it ("Copied the password of …").
    struct Field: Sendable, Equatable {
        var name: String

        init(name: String) { self.name = name }

        static let password = Field(name: "password")
        static let username = Field(name: "username")
        static let origin = Field(name: "origin")
        static let totp = Field(name: "TOTP code")
    }

    var field: Field
    var until: Date

    init(field: Field, until: Date) {
        self.field = field
        self.until = until
    }
}
