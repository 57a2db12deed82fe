import Foundation

extension Vault {
    /// Makes a new device of a vault that exists on the server: a new file holding the server's
    /// keystore as stable, unlocked with `passphrase`. Items arrive with the first sync.
    ///
    /// `meta` is written in the transaction that makes the file (the sync account): a joined vault
    /// that exists has it, even if the process dies the moment the file is in place.
    ///
    /// - Throws: `wrongPassphrase` before anything is written; `vaultExists` if the file exists.
    public static func join(at path: String, keystore: KeystoreRecord, passphrase: SecureBuffer,
                            deviceName: String = Vault.defaultDeviceName, meta: [MetaKey: String] = [:],
                            clock: @escaping @Sendable () -> Timestamp = { .now() }) throws -> Vault {
        if FileManager.default.fileExists(atPath: path) { throw CoreError.vaultExists(path: path) }
        let opened = try KeystoreSealing.open(keystore, passphrase: passphrase)
        let database = try VaultDatabase.create(at: path) { db in
            try VaultDatabase.saveStableKeystore(keystore, in: db)
            try Vault.writeDeviceMeta(deviceName: deviceName, created: clock(), in: db)
            for (key, value) in meta { try VaultDatabase.setMeta(key, value, in: db) }
        }
        return Vault(database: database, clock: clock,
                     session: UnlockedSession(keys: opened.passphraseKeys, ring: opened.ring, vaultKey: opened.vaultKey,
                                              kdf: opened.kdf, ringSource: RingSource(keystore.encrypted)))
    }

    /// Whether this vault's keystore has ever reached a server (a stable keystore exists).
    public nonisolated func hasSyncedKeystore() throws -> Bool {
        try database.read { try VaultDatabase.stableKeystore(in: $0) != nil }
    }
}
