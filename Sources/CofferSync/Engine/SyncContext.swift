import CofferCore
import Foundation
import Logging

/// What every sync step works with: the vault, the server and a log.
struct SyncContext: Sendable {
    let vault: Vault
    let client: KintoClient
    let logger: Logger
    let progress: @Sendable (SyncProgress) -> Void

    init(vault: Vault, client: KintoClient, logger: Logger = Logger(label: "coffer.sync"),
         progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }) {
        self.vault = vault
        self.client = client
        self.logger = logger
        self.progress = progress
    }

    var database: VaultDatabase { vault.database }
}
