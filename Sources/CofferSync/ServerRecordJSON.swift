import CofferCore
import Foundation

/// A server answer the engine refuses (a hostile or broken server): reported as `NETWORK`,
/// and nothing of it is stored.
struct RefusedRecord: Error, CustomStringConvertible {
    var description: String
}

/// The JSON of records as the server sends and receives them.
enum ServerRecordJSON {
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
