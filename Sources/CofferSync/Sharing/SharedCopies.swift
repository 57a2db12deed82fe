import CofferCore
import Foundation

/// The shared vaults a person belongs to, kept in their personal account's own bucket
/// (collection `shares`, one record per shared vault) so that another of their devices can make
/// its copy (`coffer share join NAME`): the vault's bucket, its name and the member secrets as
/// their copy keeps them, both sealed under the personal passphrase (`MemberSecrets`,
/// `SealedShareName`; the server sees what it sees of the personal keystore: Argon2id
/// parameters, a verifier and ciphertext).
///
/// Record: `{"name": BUCKET, "sealed_name": …, "member": …}` since 2026-12-07; before,
/// `{"name": NAME, "member": …}` with the name in the clear, which is still read. An older
/// version reads the clear `name` only: it sees the vault named by its bucket id (architecture §17).
public enum SharedCopies {
    public static let collection = "shares"

    public struct Copy: Sendable, Equatable {
        public var vaultID: SharedVaultID
        /// The clear name as recorded: the bucket id when the name is sealed (`sealedName`).
        public var name: String
        /// `meta.share_member`'s JSON.
        public var member: String
        /// The name sealed under the personal passphrase (`SealedShareName`); nil in a record an
        /// older version wrote.
        public var sealedName: String?

        public init(vaultID: SharedVaultID, name: String, member: String, sealedName: String? = nil) {
            self.vaultID = vaultID
            self.name = name
            self.member = member
            self.sealedName = sealedName
        }

        /// This copy with its name opened under `keys`; the clear name when it does not open (a
        /// record an older version wrote, or sealed under another passphrase).
        public func opened(with keys: PassphraseKeys) -> Copy {
            guard let sealedName, let name = SealedShareName.open(sealedName, under: keys, vaultID: vaultID) else { return self }
            var copy = self
            copy.name = name
            return copy
        }
    }

    /// Writes (or replaces) the record of the vault `name` in the personal account's bucket, the
    /// name sealed under `keys` (those `member` is sealed under).
    public static func publish(_ vaultID: SharedVaultID, name: String, member: String, sealedUnder keys: PassphraseKeys,
                               with personal: KintoClient) async throws {
        let sealed = try SealedShareName.seal(name, under: keys, vaultID: vaultID)
        _ = try await personal.putRecord(in: collection, id: vaultID.bucket,
                                         data: ["name": vaultID.bucket, "sealed_name": sealed, "member": member], onlyIfNew: false)
    }

    /// Every shared vault the person's devices recorded, names as recorded (see `Copy.opened`);
    /// records of another shape are passed over.
    public static func list(with personal: KintoClient) async throws -> [Copy] {
        guard case .changes(let records, _) = try await personal.listChanges(named: collection, since: nil, pageSize: nil)
        else { return [] }
        return records.compactMap { data in
            guard data.count <= 16_384, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let id = object["id"] as? String, let vaultID = SharedVaultID(bucket: id),
                  let name = object["name"] as? String, SharedVaultName.isValid(name),
                  let member = object["member"] as? String else { return nil }
            return Copy(vaultID: vaultID, name: name, member: member, sealedName: object["sealed_name"] as? String)
        }.sorted { $0.name < $1.name }
    }

    /// `list`, each name opened under `keys`, sorted by name.
    public static func list(with personal: KintoClient, opening keys: PassphraseKeys) async throws -> [Copy] {
        try await list(with: personal).map { $0.opened(with: keys) }.sorted { $0.name < $1.name }
    }
}
