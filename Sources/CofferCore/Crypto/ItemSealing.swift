import Crypto
import Foundation

/// Turns an item into its record (hashes, `active`, ciphertext) and back.
public enum ItemSealing {
    /// `lineage` says which version this one was made from (see `Lineage.following`); `signer`
    /// signs it, in a shared vault (`ItemSignature`).
    public static func seal(_ item: Item, ring: KeyRing, lineage: Lineage, lastModified: Int64 = 0) throws -> ItemRecord {
        try seal(item, ring: ring, lineage: lineage, lastModified: lastModified, signer: nil)
    }

    static func seal(_ item: Item, ring: KeyRing, lineage: Lineage, lastModified: Int64, signer: ItemSigner?) throws -> ItemRecord {
        guard let key = ring.withKey(for: item.id, { SymmetricKey(data: $0) }) else {
            throw CoreError.itemKeyMissing(id: item.id)
        }
        var json = try ItemCodec.encode(item)
        var plaintext = padded(&json)
        defer { wipe(&plaintext) }
        let sealed = try Envelope.seal(plaintext, symmetricKey: key, collection: CollectionName.items.rawValue, id: item.id,
                                       lineage: lineage)
        let record = ItemRecord(
            id: item.id, isActive: !item.disabled,
            originHashes: uniqueSorted(item.origins.map { SearchHash.hash(SearchHash.normalizedOrigin($0), key: ring.hashingKey) }),
            tagHashes: uniqueSorted(item.tags.map { SearchHash.hash(SearchHash.normalizedTag($0), key: ring.hashingKey) }),
            encrypted: sealed.base64EncodedString(), lastModified: lastModified)
        return try signer.map { try ItemSignature.signed(record, by: $0) } ?? record
    }

    /// Opens a record: `itemKeyMissing` if its key has not arrived, `tampered` if it fails authentication.
    ///
    /// A record sealed before the ring's generation began (architecture §17) opens with one of
    /// the item's retired keys, unless `allowingRetired` is false (finding what to seal again).
    public static func open(_ record: ItemRecord, ring: KeyRing, allowingRetired: Bool = true) throws -> Item {
        guard ring.mayOpen(record.id, allowingRetired: allowingRetired) else {
            throw CoreError.itemKeyMissing(id: record.id)
        }
        guard let sealed = Data(base64Encoded: record.encrypted) else {
            throw CoreError.tampered(what: "item \(record.id) is not base64")
        }
        var plaintext = try ring.open(sealed, itemID: record.id, collection: CollectionName.items.rawValue, id: record.id,
                                      allowingRetired: allowingRetired)
        defer { wipe(&plaintext) }
        let item: Item
        do {
            item = try ItemCodec.decode(plaintext)
        } catch {
            throw CoreError.tampered(what: "item \(record.id) decrypted to malformed data")
        }
        guard item.id == record.id else { throw CoreError.tampered(what: "item \(record.id) holds another item's data") }
        return item
    }

    /// `open` for a version the server sent: after a device's removal gave the vault new keys
    /// (`KeyRing+Succession.swift`), a version that only a retired key opens is taken only if the
    /// vault had it then (the removed device kept those keys); `tampered` otherwise.
    public static func openFetched(_ record: ItemRecord, ring: KeyRing) throws -> Item {
        guard ring.committed != nil, ring.contains(record.id) else { return try open(record, ring: ring) }
        do {
            return try open(record, ring: ring, allowingRetired: false)
        } catch CoreError.tampered(let what) {
            guard ring.hasRetiredKeys(for: record.id) else { throw CoreError.tampered(what: what) }
            guard ring.admitsRetired(itemID: record.id, encrypted: Data(record.encrypted.utf8)) else {
                throw CoreError.tampered(what: "item \(record.id) opens only with a key retired when the vault's keys last changed, "
                                         + "and is no version the vault had then")
            }
            return try open(record, ring: ring)
        }
    }

    /// Pads an item's JSON with spaces to its size class (`SizeClass.item`), so the server sees
    /// the class, not the length.
    ///
    /// Format note: whitespace after the document is what every version's reader skips
    /// (`JSONScanner.expectEnd`, and `JSONDecoder` before it), so a version older than the padding
    /// opens a padded item as it always did, and writes it back unpadded; an unpadded item, from
    /// such a version, opens here unchanged (`ItemPaddingTests`).
    ///
    /// The JSON is wiped; the result is the caller's to wipe (one buffer of the padded size, so no
    /// growing leaves a copy of the plaintext behind).
    package static func padded(_ json: inout Data) -> Data {
        defer { wipe(&json) }
        let length = SizeClass.item(json.count)
        var plaintext = Data(capacity: length)
        plaintext.append(json)
        plaintext.append(contentsOf: repeatElement(UInt8(ascii: " "), count: length - json.count))
        return plaintext
    }

    private static func uniqueSorted(_ hashes: [String]) -> [String] { Array(Set(hashes)).sorted() }
}
