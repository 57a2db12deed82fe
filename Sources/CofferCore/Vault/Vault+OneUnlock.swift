import Foundation

/// One passphrase, several vaults (architecture §17): a person's shared vaults sit beside their
/// personal vault and open with its passphrase, whose keys (derived with the personal vault's
/// parameters) an unlock returns. With them, the other vaults open without Argon2id again.
extension Vault {
    /// Unlocks with passphrase keys an earlier unlock of another vault returned (`unlock(passphrase:)`).
    /// The session gets its own copy: `keys` stay the caller's to keep and wipe.
    ///
    /// - Throws: `wrongPassphrase` when they are not this vault's (another passphrase, or a
    ///   passphrase changed since: then only the passphrase itself opens it), or `tampered`.
    public func unlock(keys: PassphraseKeys) throws {
        if let vaultID = sharedVaultID {
            guard let stored = try database.meta(.shareMember) else {
                throw CoreError.tampered(what: "this shared vault has no member keys")
            }
            let (secrets, kdf) = try MemberSecrets.open(stored, keys: keys, vaultID: vaultID)
            return try unlockShared(secrets, readFrom: stored, keys: keys, kdf: kdf, vaultID: vaultID)
        }
        guard let current = try database.read({ try VaultDatabase.currentKeystore(in: $0) }) else {
            throw CoreError.notAVault(path: database.path, reason: "it has no keystore")
        }
        try unlockKeystore(keys: keys, current: current)
    }

    /// A shared vault's member secrets opened with the person's passphrase keys (no Argon2id);
    /// nil for a personal vault.
    ///
    /// - Throws: `wrongPassphrase` when they are another passphrase's, or `tampered`.
    public nonisolated func memberSecrets(keys: PassphraseKeys) throws -> MemberSecrets? {
        guard let vaultID = sharedVaultID else { return nil }
        guard let stored = try database.meta(.shareMember) else {
            throw CoreError.tampered(what: "this shared vault has no member keys")
        }
        return try MemberSecrets.open(stored, keys: keys, vaultID: vaultID).secrets
    }

    /// Whether `keys` open this vault (`unlock(keys:)`), read locked from the verifier stored in
    /// the clear: the keystore's for a personal vault, the member secrets' for a shared one.
    public nonisolated func opens(with keys: PassphraseKeys) -> Bool {
        let verifier: String?
        if sharedVaultID != nil {
            verifier = (try? database.meta(.shareMember)).flatMap { $0 }.flatMap(MemberSecrets.verifier(of:))
        } else {
            verifier = (try? database.read(VaultDatabase.currentKeystoreWrapping))?.flatMap { $0 }?.verifier
        }
        return verifier.map(keys.matches(verifier:)) ?? false
    }

    /// The shared vaults beside the personal vault at `path`: the `.db` files in its directory
    /// that a `share create` or `share join` made (`meta.share_personal_vault` set), sorted by path.
    /// Each is opened through SQLite only, never read as a file.
    public static func sharedVaultPaths(besidePersonalVault path: String) -> [String] {
        let directory = (path as NSString).deletingLastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".db") }.map { (directory as NSString).appendingPathComponent($0) }.filter { other in
            other != path && (try? VaultDatabase.open(at: other).meta(.sharePersonalVault)) != nil
        }.sorted()
    }
}
