import Foundation

extension Vault {
    /// The shared vault this file is a member's copy of (architecture §17), or nil for a personal vault.
    public nonisolated var sharedVaultID: SharedVaultID? {
        (try? database.meta(.shareVault)).flatMap { $0 }.flatMap(SharedVaultID.init(bucket:))
    }

    /// The member's secrets of a shared vault, opened with the person's passphrase; nil for a
    /// personal vault.
    ///
    /// - Throws: `wrongPassphrase`, `kdfDowngrade`, or `tampered` (a shared vault without them).
    public nonisolated func memberSecrets(passphrase: SecureBuffer) throws -> MemberSecrets? {
        guard let vaultID = sharedVaultID else { return nil }
        guard let stored = try database.meta(.shareMember) else {
            throw CoreError.tampered(what: "this shared vault has no member keys")
        }
        return try MemberSecrets.open(stored, passphrase: passphrase, vaultID: vaultID)
    }

    /// The roster entries this device verified last (`meta.roster_entries`), oldest first.
    public nonisolated func verifiedRoster() throws -> [RosterEntry] {
        guard let text = try database.meta(.rosterEntries) else { return [] }
        return try text.split(separator: "\n").map { line in
            guard let bytes = Data(base64Encoded: String(line)), let entry = try? RosterEntry(encoded: bytes) else {
                throw CoreError.tampered(what: "the stored roster is malformed")
            }
            return entry
        }
    }

    /// `meta.roster_entries`' text for `entries`.
    public static func rosterMeta(_ entries: [RosterEntry]) -> String {
        entries.map { $0.encoded.base64EncodedString() }.joined(separator: "\n")
    }
}

extension Vault {
    /// The passphrase's keys as this (personal) vault derives them, checked against its verifier,
    /// and the parameters they were derived with: a shared vault's member secrets are sealed under
    /// them, so the one passphrase opens both.
    ///
    /// - Throws: `wrongPassphrase`, `kdfDowngrade`, or `notAVault`.
    public nonisolated func passphraseKeys(_ passphrase: SecureBuffer) throws -> (keys: PassphraseKeys, kdf: KDFParameters) {
        guard let wrapping = try database.read(VaultDatabase.currentKeystoreWrapping) else {
            throw CoreError.notAVault(path: database.path, reason: "it has no keystore")
        }
        try wrapping.kdf.checkStrength()
        let keys = try PassphraseKeys(passphrase: passphrase, parameters: wrapping.kdf)
        guard keys.matches(verifier: wrapping.verifier) else { throw CoreError.wrongPassphrase }
        return (keys, wrapping.kdf)
    }
}
