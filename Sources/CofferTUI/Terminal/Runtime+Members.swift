import CofferCore
import CofferSync
import Foundation

/// The Members page's work: a revocation, the same steps as `coffer share revoke`
/// (`SharedMembership`), signed with the member secrets the kept passphrase keys open.
extension Runtime {
    func revokeMember(id: String, name: String) {
        guard let vault, let keys = kept.opening(vault) else {
            return inbox.post(.memberRevokeFailed("Lock and unlock again: this screen holds no key to sign the roster with."))
        }
        let inbox = self.inbox
        Task.detached {
            do {
                guard let membership = try SharedMembership(vault: vault), let secrets = try vault.memberSecrets(keys: keys) else {
                    return inbox.post(.memberRevokeFailed("This vault has no sync account: it no longer syncs."))
                }
                // The roster the person chose from, then the server's: a raced removal is told apart.
                let decided = try vault.verifiedRoster()
                let entries = try await membership.refreshRoster()
                let outcome = try await membership.remove(id, with: secrets, continuing: entries, decidedOn: decided)
                let shown = "\u{201C}\(TerminalText.name(name))\u{201D}"
                inbox.post(.memberRevoked(outcome.raced
                    ? "Revoked \(shown); they had removed you at the same moment: you are no longer a member either."
                    : "Revoked \(shown): the server refuses their account from now on (\(outcome.rewritten) record(s) rewritten)."))
            } catch let error as KintoError {
                inbox.post(.memberRevokeFailed("The revocation stopped: \(error.userMessage)"))
            } catch let problem as RosterProblem {
                inbox.post(.memberRevokeFailed("The roster refuses this change: \(problem)"))
            } catch {
                inbox.post(.memberRevokeFailed("The revocation stopped: \(error)"))
            }
        }
    }

    /// After an unlock of a shared vault: a new epoch when its current one should not be used
    /// (someone left and knows its key, two removals raced, or its key reached nobody:
    /// `SharedMembership.rotateIfNeeded`), then a sync that brings the new key, which the screen
    /// takes with the keys it kept (`takeNewKeys`) and which gives the vault new keys. Offline, or
    /// refused, it is tried again at the next unlock.
    func rotateSharedKeysIfNeeded() {
        guard let vault, vault.sharedVaultID != nil, let keys = kept.opening(vault) else { return }
        let inbox = self.inbox
        Task.detached {
            guard let membership = try? SharedMembership(vault: vault), let secrets = try? vault.memberSecrets(keys: keys),
                  let epoch = try? await membership.rotateIfNeeded(with: secrets) else { return }
            inbox.post(.vaultEvent(vault, .sharedKeysRotated(vault: membership.name, epoch: epoch)))
        }
    }
}
