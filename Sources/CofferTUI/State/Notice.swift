import Foundation

/// A one-line message above the status bar ("Copied the password", "Deleted …"), gone after a while.
struct Notice: Sendable, Equatable {
    var text: String
    var isError: Bool
    var until: Date

    init(_ text: String, isError: Bool = false, until: Date) {
        self.text = text
        self.isError = isError
        self.until = until
    }

    static let lifetime: TimeInterval = 5
}
