import Foundation

/// A one-line message above the status bar ("Copied the password", "Deleted …"), gone after a while.
public struct Notice: Sendable, Equatable {
    public var text: String
    public var isError: Bool
    public var until: Date

    public init(_ text: String, isError: Bool = false, until: Date) {
        self.text = text
        self.isError = isError
        self.until = until
    }

    public static let lifetime: TimeInterval = 5
}
