import CofferCore
import Foundation
import Logging

/// What every sync step works with: the vault, the server and a log.
struct SyncContext: Sendable {
    let vault: Vault
    let client: KintoClient
    let logger: Logger
    let progress: @Sendable (SyncProgress) -> Void

    var database: VaultDatabase { vault.database }
}
