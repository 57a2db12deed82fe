import CofferCore
import Foundation

/// The vault picker's work: listing the vaults, and putting another on the screen, opened with
/// the passphrase keys this screen kept when they fit (architecture §5).
extension Runtime {
    func loadVaults() {
        guard let vault else { return }
        let isOpen = !state.isLocked
        let keys = kept.all
        let inbox = self.inbox
        Task.detached {
            inbox.post(.vaultsLoaded(VaultCatalog.choices(current: vault, isOpen: isOpen, keys: keys)))
        }
    }

    /// Opens the vault at `path`; the kept keys that fit unlock it (no Argon2id: they are the
    /// passphrase's, derived once). Keys that no longer fit (its passphrase changed since) leave
    /// it locked, for its prompt to ask.
    func switchVault(to path: String) {
        let keys = kept.all
        let inbox = self.inbox
        Task.detached {
            do {
                let next = try Vault.open(at: path)
                var items: [ScreenItem]?
                if let fitting = keys.first(where: next.opens(with:)) {
                    do {
                        try await next.unlock(keys: fitting)
                        items = try await next.listItems().map(ScreenItem.init)
                    } catch CoreError.wrongPassphrase {
                        items = nil
                    } catch {
                        await next.lock()
                        throw error
                    }
                }
                let summary = try VaultSummary(of: next)
                inbox.post(.vaultSwitched(next, .vaultSwitched(path: path, summary: summary, items: items)))
            } catch {
                inbox.post(.vaultSwitchFailed("\(error)"))
            }
        }
    }

    /// Keeps `next` as the vault on the screen; the one before locks (its keys go; the kept
    /// passphrase keys stay, for the way back).
    func adopt(_ next: Vault, then event: ScreenEvent) {
        let previous = vault
        vault = next
        // The next look for other processes' commits is this vault's, and reloads once.
        changes = (nil, .distantPast, false)
        if let previous, previous !== next { Task.detached { await previous.lock() } }
        dispatch(event)
        if !state.isLocked { rotateSharedKeysIfNeeded() }
    }
}
