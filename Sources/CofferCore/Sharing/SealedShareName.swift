import Foundation

/// A shared vault's name as the person's `shares` record keeps it (architecture §17): sealed
/// under the personal passphrase's wrapping key, the key that seals the member secrets beside it
/// (`MemberSecrets`), bound to the vault's bucket, and padded to one length, so the server
/// learns neither the name nor its length.
///
/// Format (since 2026-12-07): an `Envelope` version 1, collection `share-name`, id the bucket, over
/// the name's UTF-8 followed by NUL bytes up to `SharedVaultName.limit` (a name holds no NUL). The
/// record's clear `name` is then the bucket id, which the server already has as the record's id.
/// A version older than this reads the clear `name` as it always did, so it lists and joins the
/// vault under the bucket id (`ShareCommandTests.testTheServerSeesWhatTheREADMESays`, which also reads the old shape).
public enum SealedShareName {
    static let collection = "share-name"

    /// The base64 of `name` sealed under `keys`, bound to `vaultID`.
    public static func seal(_ name: String, under keys: PassphraseKeys, vaultID: SharedVaultID) throws -> String {
        precondition(SharedVaultName.isValid(name))
        var plaintext = Data(name.utf8)
        plaintext.append(Data(count: SharedVaultName.limit - plaintext.count))
        defer { wipe(&plaintext) }
        return try Envelope.seal(plaintext, key: keys.wrappingKey, collection: collection, id: vaultID.bucket).base64EncodedString()
    }

    /// The name `sealed` holds; nil when it does not open under `keys` (another passphrase's,
    /// or not sealed here) or holds anything but a valid name padded with NULs.
    public static func open(_ sealed: String, under keys: PassphraseKeys, vaultID: SharedVaultID) -> String? {
        guard let box = Data(base64Encoded: sealed),
              let plaintext = try? Envelope.open(box, key: keys.wrappingKey, collection: collection, id: vaultID.bucket)
        else { return nil }
        return name(padded: plaintext)
    }

    /// The name in a padded plaintext: exactly `SharedVaultName.limit` bytes, a valid name, then NULs only.
    package static func name(padded plaintext: Data) -> String? {
        guard plaintext.count == SharedVaultName.limit else { return nil }
        let bytes = Array(plaintext)
        let length = bytes.firstIndex(of: 0) ?? bytes.count
        guard bytes[length...].allSatisfy({ $0 == 0 }) else { return nil }
        let name = String(decoding: bytes[..<length], as: UTF8.self)
        return SharedVaultName.isValid(name) ? name : nil
    }
}
