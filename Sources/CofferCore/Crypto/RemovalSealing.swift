import Crypto
import Foundation

/// A removal only a holder of the item's key can write (issue 41): a plain Kinto `DELETE` is
/// something any server can do, so devices refuse it, and a removal is instead a record whose
/// `encrypted` is a fixed marker sealed under the item's key, in an envelope whose associated data
/// binds the item's id and a lineage that follows the version it removes (architecture §2).
///
/// The marker is no item: opened as an item it fails (`ItemSealing.open`), so a server that serves
/// a removal's bytes as an item version gets them refused by the mirror, and an item's bytes served
/// as a removal fail `isAuthentic` here.
public enum RemovalSealing {
    /// The sealed plaintext: JSON, so a later version may say more (who, when) beside it.
    static let marker = Data(#"{"removed":true}"#.utf8)

    /// The removal of `id`, made from the version `base` (stable's envelope: the lineage says which
    /// version it removes and outranks it), signed in a shared vault. Nil when the ring lacks the
    /// item's key (an item waiting for its key): its removal goes as a plain tombstone.
    static func seal(_ id: String, ring: KeyRing, base: String?, now: Timestamp, signer: ItemSigner?) throws -> ItemRecord? {
        try seal(id, ring: ring, lineage: .following(base, now: now), signer: signer)
    }

    /// The removal of `id` with `lineage`, under the item's current key.
    static func seal(_ id: String, ring: KeyRing, lineage: Lineage, signer: ItemSigner?) throws -> ItemRecord? {
        guard let key = ring.withKey(for: id, { SymmetricKey(data: $0) }) else { return nil }
        let sealed = try Envelope.seal(marker, symmetricKey: key, collection: CollectionName.items.rawValue, id: id, lineage: lineage)
        var removal = ItemRecord.tombstone(id: id, lastModified: 0)
        removal.encrypted = sealed.base64EncodedString()
        return try signer.map { try ItemSignature.signed(removal, by: $0) } ?? removal
    }

    /// Whether `record` is a removal of its id sealed under a key of `ring` (retired keys count: the
    /// member who sealed it may have done so before a rekey). `itemKeyMissing` when the ring holds
    /// no key of the item yet: it cannot be told either way.
    /// `judgingRetired` false: any retired key counts (this device's own removal, sealed before it
    /// took new keys), not only for a committed version.
    public static func isAuthentic(_ record: ItemRecord, ring: KeyRing, judgingRetired: Bool = true) throws -> Bool {
        guard record.isSealedRemoval else { return false }
        guard ring.mayOpen(record.id) else { throw CoreError.itemKeyMissing(id: record.id) }
        guard let sealed = Data(base64Encoded: record.encrypted) else { return false }
        func opened(allowingRetired: Bool) -> Data? {
            try? ring.open(sealed, itemID: record.id, collection: CollectionName.items.rawValue, id: record.id,
                           allowingRetired: allowingRetired)
        }
        // A retired key opens only a removal the vault had when its keys changed (`ItemSealing.openFetched`).
        guard var plaintext = opened(allowingRetired: false)
                ?? (!judgingRetired || ring.admitsRetired(itemID: record.id, encrypted: Data(record.encrypted.utf8))
                    ? opened(allowingRetired: true) : nil)
        else { return false }
        defer { wipe(&plaintext) }
        return plaintext == marker
    }
}
