import Foundation

/// The keys of an open keystore: the item key ring, the vault key that seals it, and the
/// passphrase keys that wrap the vault key.
public struct OpenedKeystore: Sendable {
    public let ring: KeyRing
    public let vaultKey: SecureBuffer
    public let passphraseKeys: PassphraseKeys
    public let kdf: KDFParameters
}

/// Seals a key ring into a keystore record and opens one again.
public enum KeystoreSealing {
    static let collection = CollectionName.keystores.rawValue
    static let ringID = CollectionName.keystoreID
    static let vaultKeyID = CollectionName.keystoreID + "-vault-key"

    /// A complete record: the ring under `vaultKey`, and `vaultKey` wrapped under the passphrase keys.
    /// `lineage` says which keystore version this one was made from (see `Lineage.following`); the
    /// new wrapping is tagged with its revision (`KeystoreWrappingTag`), and above the wrapping it
    /// replaces (`replacing`, when its tag checks out under `vaultKey`): revisions come from clocks,
    /// and a device whose clock is behind must still make a newer wrapping (without this, such a
    /// passphrase change lost to the old wrapping on every device).
    public static func seal(_ ring: KeyRing, vaultKey: SecureBuffer, keys: PassphraseKeys, kdf: KDFParameters,
                            lineage: Lineage, lastModified: Int64, replacing previous: KeystoreRecord? = nil) throws -> KeystoreRecord {
        let wrapped = try vaultKey.withUnsafeBytes {
            try Envelope.seal($0, key: keys.wrappingKey, collection: collection, id: vaultKeyID)
        }
        let record = KeystoreRecord(kdf: kdf, verifier: keys.verifier, wrappedKey: wrapped.base64EncodedString(),
                                    encrypted: try sealRing(ring, vaultKey: vaultKey, lineage: lineage), lastModified: lastModified)
        var revision = Int64(clamping: lineage.revision)
        if let previous, KeystoreWrappingTag.isAuthentic(previous, vaultKey: vaultKey), previous.wrappingRevision < Int64.max {
            revision = max(revision, previous.wrappingRevision + 1)
        }
        return KeystoreSuccession.vouched(KeystoreWrappingTag.tagged(record, revision: revision, vaultKey: vaultKey), ring: ring)
    }

    /// The same passphrase wrapping as `wrapping`, with the ring sealed anew (merging key rings
    /// needs only the vault key, so it works whichever passphrase wraps it). `vaultKey` must be
    /// the key `wrapping` wraps. A wrapping written before tags existed is tagged now, at
    /// revision 1 (older than any wrapping a tagging version makes): from the first keystore this
    /// device writes, the server can no longer bring an older wrapping back.
    public static func reseal(_ ring: KeyRing, vaultKey: SecureBuffer, keepingWrappingOf wrapping: KeystoreRecord,
                              lineage: Lineage, lastModified: Int64) throws -> KeystoreRecord {
        let record = KeystoreRecord(kdf: wrapping.kdf, verifier: wrapping.verifier, wrappedKey: wrapping.wrappedKey,
                                    encrypted: try sealRing(ring, vaultKey: vaultKey, lineage: lineage), lastModified: lastModified,
                                    wrappingRevision: wrapping.wrappingRevision, wrappingTag: wrapping.wrappingTag)
        if KeystoreWrappingTag.isAuthentic(record, vaultKey: vaultKey) { return KeystoreSuccession.vouched(record, ring: ring) }
        return KeystoreSuccession.vouched(KeystoreWrappingTag.tagged(record, revision: 1, vaultKey: vaultKey), ring: ring)
    }

    /// The ring carries the keystore's lineage (the wrapped key is re-used across versions).
    static func sealRing(_ ring: KeyRing, vaultKey: SecureBuffer, lineage: Lineage) throws -> String {
        let plaintext = ring.serialized()
        return try plaintext.withUnsafeBytes {
            try Envelope.seal($0, key: vaultKey, collection: collection, id: ringID, lineage: lineage)
        }.base64EncodedString()
    }

    /// Opens `record` with `passphrase`.
    ///
    /// - Throws: `kdfDowngrade` for parameters below the floor, `wrongPassphrase` when the verifier
    ///   does not match, `tampered` when the verifier matches but a blob fails to open or parse.
    public static func open(_ record: KeystoreRecord, passphrase: SecureBuffer) throws -> OpenedKeystore {
        try record.kdf.checkStrength()
        return try open(record, keys: try PassphraseKeys(passphrase: passphrase, parameters: record.kdf))
    }

    /// `open(_:passphrase:)` with the passphrase's keys already derived with `record.kdf`, whose
    /// strength the caller checked before deriving them.
    static func open(_ record: KeystoreRecord, keys: PassphraseKeys) throws -> OpenedKeystore {
        let vaultKey = try unwrapVaultKey(record, keys: keys)
        return OpenedKeystore(ring: try openRing(record, vaultKey: vaultKey), vaultKey: vaultKey,
                              passphraseKeys: keys, kdf: record.kdf)
    }

    public static func unwrapVaultKey(_ record: KeystoreRecord, keys: PassphraseKeys) throws -> SecureBuffer {
        guard keys.matches(verifier: record.verifier) else { throw CoreError.wrongPassphrase }
        guard let sealed = Data(base64Encoded: record.wrappedKey) else {
            throw CoreError.tampered(what: "the keystore's wrapped key is not base64")
        }
        var plaintext = try Envelope.open(sealed, key: keys.wrappingKey, collection: collection, id: vaultKeyID)
        defer { wipe(&plaintext) }
        guard plaintext.count == KeyRing.keyLength else { throw CoreError.tampered(what: "the keystore's vault key is malformed") }
        return SecureBuffer(copying: plaintext)
    }

    /// Opens the key ring with the vault key alone (no passphrase needed).
    public static func openRing(_ record: KeystoreRecord, vaultKey: SecureBuffer) throws -> KeyRing {
        guard let sealed = Data(base64Encoded: record.encrypted) else {
            throw CoreError.tampered(what: "the keystore is not base64")
        }
        var plaintext = try Envelope.open(sealed, key: vaultKey, collection: collection, id: ringID)
        defer { wipe(&plaintext) }
        return try plaintext.withUnsafeBytes { try KeyRing.parse($0) }
    }
}
