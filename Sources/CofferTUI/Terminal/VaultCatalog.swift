import CofferCore
import Foundation

/// The vaults the picker lists: the personal vault and the shared vaults beside it
/// (`Vault.sharedVaultPaths`), each read locked through SQLite. Runs off the loop.
enum VaultCatalog {
    /// The personal vault the vault at `path` belongs to: a shared vault names it in `meta`.
    static func personalVaultPath(of vault: Vault) -> String {
        (try? vault.database.meta(.sharePersonalVault)).flatMap { $0 } ?? vault.database.path
    }

    /// Every vault of the person, the personal one first. The one on the screen (`current`) is
    /// read through its open connection (`isOpen` when it is unlocked); another is
    /// `opensWithoutAsking` when one of `keys` (this screen's kept keys) opens it.
    static func choices(current: Vault, isOpen: Bool, keys: [PassphraseKeys]) -> [VaultChoice] {
        let personal = personalVaultPath(of: current)
        let paths = [personal] + Vault.sharedVaultPaths(besidePersonalVault: personal)
        return paths.map { path in
            let isCurrent = isSameFile(path, current.database.path)
            do {
                let vault = isCurrent ? current : try Vault.open(at: path)
                let name = vault.sharedVaultID == nil ? nil : try vault.database.meta(.shareName) ?? vault.sharedVaultID?.bucket
                let access: VaultChoice.Access = isCurrent
                    ? (isOpen ? .open : .locked) : (keys.contains(where: vault.opens(with:)) ? .opensWithoutAsking : .locked)
                return VaultChoice(path: path, sharedName: name, items: try vault.database.status().items, access: access,
                                   isCurrent: isCurrent)
            } catch {
                return VaultChoice(path: path, sharedName: nil, items: nil, access: .locked, isCurrent: isCurrent,
                                   problem: "\(error)")
            }
        }
    }

    /// `meta` keeps the personal vault's path standardized; `--vault` may have named it otherwise.
    static func isSameFile(_ one: String, _ other: String) -> Bool {
        URL(fileURLWithPath: one).standardizedFileURL.path == URL(fileURLWithPath: other).standardizedFileURL.path
    }
}
