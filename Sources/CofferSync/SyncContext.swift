import CofferCore
import Foundation
import Logging

/// What every sync step works with: the vault, the server and a log.
struct SyncContext: Sendable {
    let vault: Vault
    let client: KintoClient
    let logger: Logger
    let progress: @Sendable (SyncProgress) -> Void

    var database: VaultDatabase { vault.database }
}

/// A server answer the engine refuses (a hostile or broken server): reported as `NETWORK`,
/// and nothing of it is stored.
struct RefusedRecord: Error, CustomStringConvertible {
    var description: String
}

enum RecordJSON {
    /// Decodes a record the server sent; anything malformed is refused.
    static func decode<Record: Decodable>(_ type: Record.Type, _ data: Data, collection: CollectionName) throws -> Record {
        do {
            return try RecordCoding.decode(type, from: data)
        } catch {
            throw RefusedRecord(description: "The server sent a malformed \(collection.rawValue) record; it was not stored.")
        }
    }

    /// The record's JSON without `last_modified` (never sent: the server keeps its own).
    static func body(_ text: String) -> Data {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            return Data(text.utf8)
        }
        object.removeValue(forKey: "last_modified")
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(text.utf8)
    }
}
