import Crypto
import Foundation

/// A shared vault's item version signed by the member who wrote it (issue 42, architecture §17).
///
/// Retired keys must open old versions, so a key proves nothing about who sealed a version: a
/// removed member kept theirs. Their Ed25519 key, which the roster names, does: a version whose
/// signer the newest verified roster no longer lists is refused, whatever key seals it.
///
/// `ItemRecord.signature` is base64 of the signer's person id (16 bytes) and the signature (64
/// bytes) over `coffer/v1/item-signature` NUL, then the vault's bucket, the item id, `active`,
/// the origin and tag hashes and the ciphertext, each variable part after its length (4 bytes,
/// big-endian): what a device stores of the version, so no member of it can be swapped alone.
public enum ItemSignature {
    static let idLength = Person.idLength / 2
    static let signatureLength = 64
    /// The decoded member's length; anything else is no signature.
    static let length = idLength + signatureLength

    /// `record` signed by the person `keys` are, as a member of `vaultID`.
    public static func signed(_ record: ItemRecord, as keys: PersonKeys, in vaultID: SharedVaultID) throws -> ItemRecord {
        try signed(record, by: ItemSigner(keys: keys, vaultID: vaultID))
    }

    /// `record` with its signature by `signer`.
    static func signed(_ record: ItemRecord, by signer: ItemSigner) throws -> ItemRecord {
        var signed = record
        let signature = try signer.keys.signature(for: message(record, vaultID: signer.vaultID))
        let signerID = Data(SHA256.hash(data: signer.keys.signingPublicKey).prefix(idLength))  // `Person.id`'s bytes
        signed.signature = (signerID + signature).base64EncodedString()
        return signed
    }

    /// What the signature covers.
    static func message(_ record: ItemRecord, vaultID: SharedVaultID) -> Data {
        var bytes = Data("coffer/v1/item-signature".utf8)
        bytes.append(0)
        func append(_ text: String) {
            let utf8 = Data(text.utf8)
            withUnsafeBytes(of: UInt32(utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(utf8)
        }
        func append(_ list: [String]) {
            withUnsafeBytes(of: UInt32(list.count).bigEndian) { bytes.append(contentsOf: $0) }
            list.forEach(append)
        }
        append(vaultID.bucket)
        append(record.id)
        bytes.append(record.isActive ? 1 : 0)
        append(record.originHashes)
        append(record.tagHashes)
        append(record.encrypted)
        return bytes
    }

    /// The person id a version claims as its signer, unverified (nil: unsigned or malformed):
    /// enough to pick the records whose Kinto `write` may be someone's who left.
    public static func claimedSigner(of signature: String?) -> String? {
        guard let signature, signature.utf8.count <= 4 * ((length + 2) / 3), let blob = Data(base64Encoded: signature),
              blob.count == length else { return nil }
        return Hex.lowercase(blob.prefix(idLength))
    }

    /// Who a version is from, as far as the roster can tell.
    public enum Verdict: Sendable, Equatable {
        /// Signed by this member of the roster.
        case member(String)
        /// No signature: written before signatures (2026-12-07), by an older version, or stripped.
        case unsigned
        /// A signature that does not verify, or by someone the roster does not list now.
        case forged
    }

    /// Checks signatures against the members of one verified roster (their keys parsed once).
    public struct Checker: Sendable {
        let vaultID: SharedVaultID
        let keys: [String: Curve25519.Signing.PublicKey]

        public init(vaultID: SharedVaultID, members: [String: RosterState.Member]) {
            self.vaultID = vaultID
            keys = members.compactMapValues { try? Curve25519.Signing.PublicKey(rawRepresentation: $0.person.signingKey) }
        }

        public func verdict(_ record: ItemRecord) -> Verdict {
            guard let text = record.signature else { return .unsigned }
            guard text.utf8.count <= 4 * ((ItemSignature.length + 2) / 3), let blob = Data(base64Encoded: text),
                  blob.count == ItemSignature.length else { return .forged }
            let signer = Hex.lowercase(blob.prefix(ItemSignature.idLength))
            guard let key = keys[signer],
                  key.isValidSignature(blob.suffix(ItemSignature.signatureLength), for: ItemSignature.message(record, vaultID: vaultID))
            else { return .forged }
            return .member(signer)
        }
    }
}

/// The member this device writes a shared vault's items as, while unlocked (`UnlockedSession.signer`).
struct ItemSigner: Sendable {
    let keys: PersonKeys
    let vaultID: SharedVaultID
}
