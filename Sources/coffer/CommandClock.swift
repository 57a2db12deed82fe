import CofferCore
import Foundation

/// The one place commands read the time for codes (TOTP): the vault's clock corrected by the
/// offset its last sync measured against the server (DESIGN §10), so a device whose clock is off
/// still shows the code the site expects.
enum CommandClock {
    static func now(for vault: Vault) -> Date { vault.database.correctedNow() }
}
