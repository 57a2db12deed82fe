import Crypto
import Foundation

/// What a personal vault's ring carries after new keys were made at a device's removal
/// (`Vault.rotateKeys`, architecture §9 "New keys at a device's removal"): the vault keys of earlier
/// generations, and the **commitment** — a digest of every item version the vault had then.
///
/// The removed device kept every retired key, so a version only a retired key opens is taken only
/// if it is one the vault had when its keys changed; everything written since is sealed under keys
/// the removed device never had. The ring itself is sealed under the new vault key, wrapped under a
/// passphrase the removed device never saw: it cannot write a commitment of its own.
extension KeyRing {
    /// A version's identity in the commitment: 16 bytes of SHA-256 over the item id and its
    /// ciphertext (the record's `encrypted`, lineage and all).
    public struct CommittedVersion: Hashable, Sendable {
        let high: UInt64
        let low: UInt64

        public init(itemID: String, encrypted: Data) {
            var hash = SHA256()
            hash.update(data: Data("coffer/v1/committed-version".utf8))
            hash.update(data: Data([0]))
            hash.update(data: Data(itemID.utf8))
            hash.update(data: Data([0]))
            hash.update(data: encrypted)
            let bytes = Array(hash.finalize())
            self.init(bytes: bytes[0..<16])
        }

        init<Bytes: Collection<UInt8>>(bytes: Bytes) {
            let array = Array(bytes)
            high = array[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
            low = array[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
        }

        static let length = 16

        var bytes: [UInt8] {
            (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        }
    }

    /// The key this device's key, the device records and the messages derive from: the vault's
    /// first vault key, which the new keys of a device's removal leave in place (the removed device
    /// holds it anyway; those records never carried an item). The local search index follows the
    /// current vault key and is rebuilt.
    public var deviceRoot: SecureBuffer? { previousVaultKeys.first }

    /// Whether a version that only a retired key opens may be taken: always without a commitment
    /// (a shared vault's signatures judge its versions, §17), else only a committed one.
    public func admitsRetired(itemID: String, encrypted: Data) -> Bool {
        guard let committed else { return true }
        return committed.contains(CommittedVersion(itemID: itemID, encrypted: encrypted))
    }

    /// Keeps `key` as an earlier generation's vault key unless it is one already.
    func rememberVaultKey(_ key: SecureBuffer) {
        let known = previousVaultKeys.contains { other in
            other.withUnsafeBytes { a in key.withUnsafeBytes { b in a.elementsEqual(b) } }
        }
        if !known { previousVaultKeys.append(key.withUnsafeBytes { SecureBuffer(copying: $0) }) }
    }

    /// Takes `other`'s earlier vault keys and, when this ring has none, its commitment (two rings of
    /// one generation come from one change of keys, so their commitments are the same).
    func takeSuccession(of other: KeyRing, commitment: Bool) {
        for key in other.previousVaultKeys { rememberVaultKey(key) }
        if commitment, committed == nil { committed = other.committed }
    }
}
