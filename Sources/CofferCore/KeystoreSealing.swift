import Foundation

/// Seals a key ring into a keystore record and opens one again with the passphrase.
public enum KeystoreSealing {
    public static func seal(_ ring: KeyRing, keys: PassphraseKeys, kdf: KDFParameters,
                            lastModified: Int64) throws -> KeystoreRecord {
        let plaintext = ring.serialized()
        let sealed = try plaintext.withUnsafeBytes {
            try Envelope.seal($0, key: keys.wrappingKey, collection: CollectionName.keystores.rawValue,
                              id: CollectionName.keystoreID)
        }
        return KeystoreRecord(kdf: kdf, verifier: keys.verifier, encrypted: sealed.base64EncodedString(),
                              lastModified: lastModified)
    }

    /// Opens `record` with `passphrase`.
    ///
    /// - Throws: `kdfDowngrade` for parameters below the floor, `wrongPassphrase` when the verifier
    ///   does not match, `tampered` when the verifier matches but the blob fails to open or parse.
    public static func open(_ record: KeystoreRecord, passphrase: SecureBuffer) throws -> (KeyRing, PassphraseKeys) {
        try record.kdf.checkStrength()
        let keys = try PassphraseKeys(passphrase: passphrase, parameters: record.kdf)
        guard keys.matches(verifier: record.verifier) else { throw CoreError.wrongPassphrase }
        return (try open(record, keys: keys), keys)
    }

    /// Opens `record` with keys already derived (the record's KDF parameters must be the keys').
    public static func open(_ record: KeystoreRecord, keys: PassphraseKeys) throws -> KeyRing {
        guard keys.matches(verifier: record.verifier) else { throw CoreError.wrongPassphrase }
        guard let sealed = Data(base64Encoded: record.encrypted) else {
            throw CoreError.tampered(what: "the keystore is not base64")
        }
        var plaintext = try Envelope.open(sealed, key: keys.wrappingKey, collection: CollectionName.keystores.rawValue,
                                          id: CollectionName.keystoreID)
        defer { wipe(&plaintext) }
        return try plaintext.withUnsafeBytes { try KeyRing.parse($0) }
    }
}
