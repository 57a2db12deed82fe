import Foundation

/// The vault picker (`V`, or F3 on the locked page): the personal vault and the shared vaults
/// beside it (`VaultChoice`), read again every few seconds while it shows, and the cursor.
///
/// Nothing on it is secret, so it opens locked as well as unlocked; opened locked, Esc goes back
/// to the passphrase prompt and the vault stays locked.
struct VaultsState: Sendable, Equatable {
    /// Nil until the first listing arrives.
    var choices: [VaultChoice]?
    var cursor = 0
    /// Opened from the locked page: the vault has no keys while it shows.
    var isVaultLocked: Bool
    /// When the listing was last asked for: the page asks again `refreshSeconds` later.
    var requestedAt: Date

    /// How often the open page reads the vaults again (another process may write to any of them).
    static let refreshSeconds: TimeInterval = 2

    init(isVaultLocked: Bool, requestedAt: Date) {
        self.isVaultLocked = isVaultLocked
        self.requestedAt = requestedAt
    }

    var current: VaultChoice? {
        guard let choices, choices.indices.contains(cursor) else { return nil }
        return choices[cursor]
    }
}
