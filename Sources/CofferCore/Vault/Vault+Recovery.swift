import Foundation

extension Vault {
    /// A copy of the vault key, for a recovery kit's payload (`RecoveryPayload`); unlocked only.
    public func vaultKeyForRecovery() throws -> SecureBuffer {
        let session = try unlockedSession()
        return session.vaultKey.withUnsafeBytes { SecureBuffer(copying: $0) }
    }

    /// Brings a vault back on a new machine from its recovery kit: a new file holding the
    /// server's keystore as stable, whose ring `vaultKey` opens, and the same ring wrapped under
    /// a new `passphrase` as a local change — the first sync sends it, so the new passphrase is
    /// the vault's from then on. Items arrive with that sync. Left unlocked.
    ///
    /// - Throws: `tampered` when `vaultKey` does not open the keystore; `vaultExists`.
    public static func recover(at path: String, keystore: KeystoreRecord, vaultKey: SecureBuffer, passphrase: SecureBuffer,
                               kdf: KDFParameters, deviceName: String = Vault.defaultDeviceName, meta: [MetaKey: String] = [:],
                               clock: @escaping @Sendable () -> Timestamp = { .now() }) throws -> Vault {
        if FileManager.default.fileExists(atPath: path) { throw CoreError.vaultExists(path: path) }
        guard passphrase.count > 0 else { throw CoreError.emptyPassphrase }
        try kdf.checkStrength()
        let ring = try KeystoreSealing.openRing(keystore, vaultKey: vaultKey)
        let keys = try PassphraseKeys(passphrase: passphrase, parameters: kdf)
        let rewrapped = try KeystoreSealing.seal(ring, vaultKey: vaultKey, keys: keys, kdf: kdf,
                                                 lineage: Lineage.following(keystore.encrypted, now: clock()), lastModified: 0,
                                                 replacing: keystore)
        let database = try VaultDatabase.create(at: path) { db in
            try VaultDatabase.saveStableKeystore(keystore, in: db)
            try VaultDatabase.recordLocalChange(rewrapped, in: db)
            try Vault.writeDeviceMeta(deviceName: deviceName, created: clock(), in: db)
            for (key, value) in meta { try VaultDatabase.setMeta(key, value, in: db) }
        }
        return Vault(database: database, clock: clock,
                     session: UnlockedSession(keys: keys, ring: ring, vaultKey: vaultKey, kdf: kdf, ringSource: RingSource(rewrapped.encrypted)))
    }
}
