import CofferCore
import Foundation

/// What went wrong talking to the Kinto server, one case per way the sync engine reacts.
///
/// The engine maps these to the error names of Lockbox's sync design: `offline` → `OFFLINE`, `unauthorized` →
/// `SYNC_AUTH`, `network` and `backoff` → `NETWORK` (a `backoff` also tells when to try again).
public enum KintoError: Error, Sendable, Equatable {
    /// No connection at all: nothing listens on the port, the host name is unknown, or the
    /// machine has no network. Nothing reached the server.
    case offline(message: String)
    /// Any other transport or server failure: a timeout, a dropped connection, a 5xx answer, a
    /// malformed or truncated body, an unexpected status. A write may or may not have been applied.
    case network(message: String)
    /// The server refused the credentials (401 or 403).
    case unauthorized
    /// The server is overloaded and asked not to come back before `until` (503 or 429 with
    /// `Retry-After`). Nothing was applied.
    case backoff(until: Date)
    /// `createAccount` found an account of that name on the server already.
    case accountExists(user: String)

    /// One sentence for the person at the keyboard. The server's or libcurl's words in it are
    /// shown through `TerminalText` (already done where the error is made; kept here for any other).
    public var userMessage: String {
        switch self {
        case .offline:
            return "Cannot reach the sync server: check the network connection and the server address."
        case .network(let message):
            return "The sync server did not answer properly (\(TerminalText.message(message)))."
        case .unauthorized:
            return "The sync server refused the account name or password."
        case .backoff(let until):
            return "The sync server is busy and asked to wait until \(Self.clockTime(until)) before syncing again."
        case .accountExists(let user):
            return "The account \u{201C}\(TerminalText.line(user))\u{201D} already exists on the sync server: choose another name or sign in with its password."
        }
    }

    private static func clockTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }
}

extension KintoError: LocalizedError {
    public var errorDescription: String? { userMessage }
}
