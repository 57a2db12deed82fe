import CofferCore
import Foundation

/// The shared vaults a person belongs to, kept in their personal account's own bucket
/// (collection `shares`, one record per shared vault) so that another of their devices can make
/// its copy (`coffer share join NAME`): the vault's bucket and name, and the member secrets as
/// their copy keeps them, sealed under the personal passphrase (`MemberSecrets`; the server sees
/// what it sees of the personal keystore: Argon2id parameters, a verifier and ciphertext).
public enum SharedCopies {
    public static let collection = "shares"

    public struct Copy: Sendable, Equatable {
        public var vaultID: SharedVaultID
        public var name: String
        /// `meta.share_member`'s JSON.
        public var member: String

        public init(vaultID: SharedVaultID, name: String, member: String) {
            self.vaultID = vaultID
            self.name = name
            self.member = member
        }
    }

    /// Writes (or replaces) the record of `copy` in the personal account's bucket.
    public static func publish(_ copy: Copy, with personal: KintoClient) async throws {
        _ = try await personal.putRecord(in: collection, id: copy.vaultID.bucket,
                                         data: ["name": copy.name, "member": copy.member], onlyIfNew: false)
    }

    /// Every shared vault the person's devices recorded; records of another shape are passed over.
    public static func list(with personal: KintoClient) async throws -> [Copy] {
        guard case .changes(let records, _) = try await personal.listChanges(named: collection, since: nil, pageSize: nil)
        else { return [] }
        return records.compactMap { data in
            guard data.count <= 16_384, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let id = object["id"] as? String, let vaultID = SharedVaultID(bucket: id),
                  let name = object["name"] as? String, SharedVaultName.isValid(name),
                  let member = object["member"] as? String else { return nil }
            return Copy(vaultID: vaultID, name: name, member: member)
        }.sorted { $0.name < $1.name }
    }
}
