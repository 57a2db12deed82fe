import Foundation

/// Slow work the screen waits on while it keeps answering keys (a spinner shows it).
public struct Busy: Sendable, Equatable {
    public enum Work: Sendable, Equatable {
        /// Calibrating Argon2id and deriving the new vault's keys.
        case creatingVault
        /// Deriving the keys from the passphrase.
        case unlocking
    }

    public var work: Work
    public var since: Date

    public init(_ work: Work, since: Date) {
        self.work = work
        self.since = since
    }

    public var label: String {
        switch work {
        case .creatingVault: return "Creating the vault (deriving keys)…"
        case .unlocking: return "Unlocking (deriving keys)…"
        }
    }
}
