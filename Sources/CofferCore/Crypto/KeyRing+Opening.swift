import Crypto
import Foundation

extension KeyRing {
    /// Opens what was sealed with the key of item `itemID`: its current key, then (unless
    /// `allowingRetired` is false) the keys it had in earlier generations (architecture §17), so a
    /// record, file or review sealed before a new generation still opens.
    ///
    /// - Throws: `itemKeyMissing` when the ring has no key for the item, else the current key's error.
    func open(_ sealed: Data, itemID: String, collection: String, id: String, allowingRetired: Bool = true) throws -> Data {
        var failure: Error?
        if let current = withKey(for: itemID, { SymmetricKey(data: $0) }) {
            do {
                return try Envelope.open(sealed, symmetricKey: current, collection: collection, id: id)
            } catch {
                failure = error
            }
        }
        // Only after the current key failed: a personal vault has none, and this is every item's path.
        if allowingRetired, retiredOffsets[itemID] != nil {
            for key in retiredKeys(for: itemID) {
                if let plaintext = try? Envelope.open(sealed, symmetricKey: key, collection: collection, id: id) { return plaintext }
            }
        }
        throw failure ?? CoreError.itemKeyMissing(id: itemID)
    }
}
