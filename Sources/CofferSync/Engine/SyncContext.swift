import CofferCore
import Foundation
import Logging

/// What every sync step works with: the vault, the server and a log.
struct SyncContext: Sendable {
    let vault: Vault
    let client: KintoClient
    let logger: Logger
    let progress: @Sendable (SyncProgress) -> Void
    /// The engine's clock (a test's moves by hand).
    let now: @Sendable () -> Date

    init(vault: Vault, client: KintoClient, logger: Logger = Logger(label: "coffer.sync"),
         progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }, now: @escaping @Sendable () -> Date = { Date() }) {
        self.vault = vault
        self.client = client
        self.logger = logger
        self.progress = progress
        self.now = now
    }

    var database: VaultDatabase { vault.database }

    /// Whether what the server sends of `collection` waits beside the stable copy until an unlocked
    /// sync has authenticated it, instead of replacing it while locked. A personal vault's keystore
    /// does: a locked device cannot check it, and one garbage keystore over the stable one had
    /// locked every device out for good (issue 41). A shared vault's keystore still goes to stable
    /// while locked (its epochs take a new generation that way, §17), so a garbage one still locks
    /// every member out: holding it too made the revoker's and the members' syncs wait on the new
    /// generation (exit 12), a change that belongs with the epoch-taking work of issue 42.
    func holdsUntilAuthenticated(_ collection: CollectionName) -> Bool {
        collection == .keystores && vault.sharedVaultID == nil
    }

    /// Whether a stable item a fetch replaces is kept until an unlocked sync opened the newcomer
    /// (the mirror, `Vault.checkMirroredItems`). Not in a shared vault: there an item sealed under a
    /// new generation's keys does not open until the new epoch's key is taken, which is no forgery.
    var mirrorsReplacedItems: Bool { vault.sharedVaultID == nil }

    /// Whether a stable keystore a fetch replaces is kept until an unlocked sync or an unlock has
    /// opened the newcomer (`Vault.checkMirroredKeystore`): a shared vault's keystore goes to
    /// stable while locked (its next generation must be seen before its epoch's key is taken), and
    /// one of garbage had locked every member out (issue 41, finding 1 in a shared vault).
    var mirrorsReplacedKeystores: Bool { vault.sharedVaultID != nil }
}
