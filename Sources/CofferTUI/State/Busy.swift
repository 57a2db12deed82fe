import Foundation

/// Slow work the screen waits on while it keeps answering keys (a spinner shows it).
struct Busy: Sendable, Equatable {
    enum Work: Sendable, Equatable {
        /// Calibrating Argon2id and deriving the new vault's keys.
        case creatingVault
        /// Deriving the keys from the passphrase.
        case unlocking
    }

    var work: Work
    var since: Date

    init(_ work: Work, since: Date) {
        self.work = work
        self.since = since
    }

    var label: String {
        switch work {
        case .creatingVault: return "Creating the vault (deriving keys)…"
        case .unlocking: return "Unlocking (deriving keys)…"
        }
    }
}
