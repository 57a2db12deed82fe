import CofferCore

/// The passphrase keys this screen's unlocks returned (`Vault.unlock(passphrase:)`), kept so that
/// switching to another vault of the same passphrase opens it without asking again (one unlock
/// opens every vault that uses the passphrase: the personal vault and its shared vaults).
///
/// The wrapping keys are in locked memory (`SecureBuffer`), copies of their own: locking a vault
/// wipes its session's keys, not these. Locking the screen (`L`, idle, another device's lock)
/// and quitting wipe them all (`wipe`).
@MainActor
final class KeptPassphraseKeys {
    private var keys: [PassphraseKeys] = []

    var isEmpty: Bool { keys.isEmpty }

    /// Keeps `new` unless keys of the same passphrase and parameters are kept already.
    func keep(_ new: PassphraseKeys) {
        guard !keys.contains(where: { $0.matches(verifier: new.verifier) }) else {
            new.wrappingKey.wipe()
            return
        }
        keys.append(new)
    }

    /// The kept keys that open `vault`, if any (read from the verifier it stores in the clear).
    func opening(_ vault: Vault) -> PassphraseKeys? {
        keys.first(where: vault.opens(with:))
    }

    /// Every kept key, for a task off the loop to try (it may find them wiped by a lock meanwhile:
    /// then the vault stays locked).
    var all: [PassphraseKeys] { keys }

    func wipe() {
        for key in keys { key.wrappingKey.wipe() }
        keys = []
    }
}
