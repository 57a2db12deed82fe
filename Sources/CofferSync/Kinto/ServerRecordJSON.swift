import CofferCore
import Foundation

/// A server answer the engine refuses (a hostile or broken server): reported as `NETWORK`,
/// and nothing of it is stored.
package struct RefusedRecord: Error, CustomStringConvertible {
    package var description: String

    package init(description: String) { self.description = description }
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
}
