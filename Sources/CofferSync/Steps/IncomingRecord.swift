import CofferCore
import Foundation

/// What the steps need to know of a record, whichever collection it is in.
package struct SyncRecordHeader: Sendable, Equatable {
    package var id: String
    package var lastModified: Int64
    var isDeleted: Bool
    /// A removal sealed under the item's key (`RemovalSealing`), not yet authenticated; a deletion
    /// without it is a plain tombstone, which nobody entitled wrote (issue 41).
    var isSealedRemoval = false
    /// Its lineage: revision 0 for a record sealed before lineages, nil for a plain tombstone or
    /// bytes that are no envelope (corrupt, not older).
    var lineage: Lineage?
    var revision: UInt64? { lineage?.revision }
}

/// A record as the server sent it, decoded once and checked: its header and the record itself.
/// Its JSON text is written only when needed (a first download stores most records without it).
package struct IncomingRecord {
    package var header: SyncRecordHeader
    package var value: SyncedRecord
}

extension IncomingRecord {
    /// Decodes and checks a record the server sent, in either collection; anything malformed or
    /// hostile is refused (`RefusedRecord`) before anything is stored.
    package static func decode(_ data: Data, in collection: CollectionName) throws -> IncomingRecord {
        switch collection {
        case .items:
            let record = try ServerRecordJSON.decode(ItemRecord.self, data, collection: collection)
            guard RecordID.isValid(record.id) else {
                throw RefusedRecord(description: "The server sent an item with an invalid id; it was not stored.")
            }
            var header = header(record.id, record.lastModified, record.isDeleted, record.encrypted)
            header.isSealedRemoval = record.isSealedRemoval
            return IncomingRecord(header: header, value: .item(record))
        case .keystores:
            let record = try ServerRecordJSON.decode(KeystoreRecord.self, data, collection: collection)
            guard record.id == CollectionName.keystoreID else {
                throw RefusedRecord(description: "The server sent an unexpected keystore record; it was not stored.")
            }
            if !record.isDeleted {
                do {
                    try record.kdf.checkStrength()
                } catch {
                    throw RefusedRecord(description: "The server's keystore asks for weaker or malformed key derivation; it was refused.")
                }
            }
            return IncomingRecord(header: header(record.id, record.lastModified, record.isDeleted, record.encrypted),
                                  value: .keystore(record))
        }
    }

    private static func header(_ id: String, _ lastModified: Int64, _ isDeleted: Bool, _ encrypted: String) -> SyncRecordHeader {
        SyncRecordHeader(id: id, lastModified: lastModified, isDeleted: isDeleted,
                         lineage: encrypted.isEmpty ? nil : Lineage.of(encrypted))
    }
}
