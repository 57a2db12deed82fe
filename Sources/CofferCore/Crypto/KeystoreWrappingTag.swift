import Crypto
import Foundation

/// Binds a keystore's passphrase wrapping (`kdf`, `verifier`, `wrapped_key`) and the time it was
/// made to the vault key, so only a holder of the vault key can say which wrapping is the newest.
///
/// The ring (`encrypted`) is authenticated by the vault key, but the wrapping sits beside it in the
/// clear: without this tag a server pairs the current ring with the wrapping of an old passphrase
/// (or weaker Argon2id parameters) and devices adopt it (issue 41, finding 4). A device takes a
/// remote wrapping only when its tag checks out and its revision is newer than the one it holds
/// (`KeystoreReconcileRules.wrappingSide`).
///
/// Format: `wrapping_revision` (ms, a JSON number) and `wrapping_tag` (base64 of HMAC-SHA-256 under
/// HKDF(vault key, "coffer/v1/keystore-wrapping") over the revision (8 bytes big-endian) and each of
/// algorithm, memory, iterations, salt, verifier and wrapped key as a 4-byte length and its UTF-8).
/// An older version ignores both members and drops them when it writes the keystore again: its
/// devices then hold an untagged wrapping, which a device that holds a tagged one never takes.
public enum KeystoreWrappingTag {
    static let info = "coffer/v1/keystore-wrapping"

    /// `record` with its wrapping tagged at `revision` under `vaultKey` (the key `wrapped_key` wraps).
    public static func tagged(_ record: KeystoreRecord, revision: Int64, vaultKey: SecureBuffer) -> KeystoreRecord {
        var tagged = record
        tagged.wrappingRevision = revision
        tagged.wrappingTag = tag(of: record, revision: revision, vaultKey: vaultKey).base64EncodedString()
        return tagged
    }

    /// Whether `record` carries a tag and it checks out under `vaultKey`.
    public static func isAuthentic(_ record: KeystoreRecord, vaultKey: SecureBuffer) -> Bool {
        guard let text = record.wrappingTag, let given = Data(base64Encoded: text), given.count == 32 else { return false }
        let expected = tag(of: record, revision: record.wrappingRevision, vaultKey: vaultKey)
        // Constant time: the comparison must not tell a forger how many bytes were right.
        return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// What the rules weigh of `record`'s wrapping, checked under `vaultKey`.
    public static func claim(of record: KeystoreRecord, vaultKey: SecureBuffer) -> WrappingClaim {
        let authentic = isAuthentic(record, vaultKey: vaultKey)
        return WrappingClaim(isTagged: record.wrappingTag != nil, isAuthentic: authentic,
                             revision: authentic ? record.wrappingRevision : 0, kdf: record.kdf)
    }

    static func tag(of record: KeystoreRecord, revision: Int64, vaultKey: SecureBuffer, info: String = info) -> Data {
        let key = HKDFSHA256.derive(inputKey: vaultKey, info: info, length: 32)
        var message = Data()
        withUnsafeBytes(of: UInt64(bitPattern: revision).bigEndian) { message.append(contentsOf: $0) }
        for part in [record.kdf.algorithm, String(record.kdf.memory), String(record.kdf.iterations), record.kdf.salt,
                     record.verifier, record.wrappedKey] {
            let bytes = Data(part.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { message.append(contentsOf: $0) }
            message.append(bytes)
        }
        return key.withUnsafeBytes { Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: $0))) }
    }
}

/// One side's passphrase wrapping as the keystore rules see it.
public struct WrappingClaim: Sendable, Equatable {
    /// The record carries a tag at all (a version from 2026-12-07 on wrote it).
    public var isTagged: Bool
    /// The tag checks out under the vault key.
    public var isAuthentic: Bool
    /// The authenticated revision; 0 when not authentic.
    public var revision: Int64
    public var kdf: KDFParameters

    public init(isTagged: Bool, isAuthentic: Bool, revision: Int64, kdf: KDFParameters) {
        self.isTagged = isTagged
        self.isAuthentic = isAuthentic
        self.revision = revision
        self.kdf = kdf
    }

    /// Whether these Argon2id parameters ask for no less than `other`'s.
    public func isAtLeastAsStrong(as other: KDFParameters) -> Bool {
        kdf.memory >= other.memory && kdf.iterations >= other.iterations
    }
}

/// After new keys at a device's removal, a keystore's wrapping vouched for by each earlier vault
/// key (`succession`): a device still on an earlier generation, which cannot open the new ring,
/// tells the vault's own new keys (it waits for an unlock with the new passphrase) from a server's
/// garbage (refused, issue 41). Only holders of an earlier vault key make the tag — the removed
/// device too, which can then make a device wait, never take anything.
///
/// Format: `succession`, a JSON array of base64 HMAC-SHA-256 tags as `wrapping_tag`'s but under
/// HKDF(earlier vault key, "coffer/v1/keystore-succession"), one per earlier vault key, oldest
/// first. An older version ignores the member (and cannot open the ring it comes with).
public enum KeystoreSuccession {
    static let info = "coffer/v1/keystore-succession"

    /// `record` with the tags `ring`'s earlier vault keys make over its wrapping; unchanged without any.
    public static func vouched(_ record: KeystoreRecord, ring: KeyRing) -> KeystoreRecord {
        guard !ring.previousVaultKeys.isEmpty else { return record }
        var vouched = record
        vouched.succession = ring.previousVaultKeys.map {
            KeystoreWrappingTag.tag(of: record, revision: record.wrappingRevision, vaultKey: $0, info: info).base64EncodedString()
        }
        return vouched
    }

    /// Whether one of `record`'s succession tags checks out under `vaultKey`: it is the vault's
    /// keystore after new keys that `vaultKey` preceded.
    public static func succeeds(_ record: KeystoreRecord, vaultKey: SecureBuffer) -> Bool {
        let expected = KeystoreWrappingTag.tag(of: record, revision: record.wrappingRevision, vaultKey: vaultKey, info: info)
        return (record.succession ?? []).contains { text in
            guard let given = Data(base64Encoded: text), given.count == expected.count else { return false }
            return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }
}
