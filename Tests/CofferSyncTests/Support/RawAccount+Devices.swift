import Foundation
import XCTest

/// What the device tests read and write by raw HTTP: forged device records, replayed and altered
/// messages, and what the server holds.
extension RawAccount {
    /// Every live record of a collection, as the server lists them.
    func records(_ collection: String) async throws -> [[String: Any]] {
        let data = try await request("GET", "buckets/default/collections/\(collection)/records")
        return try XCTUnwrap(try jsonObject(data)["data"] as? [[String: Any]])
    }

    /// The collection's listing as text (for canary scans).
    func text(_ collection: String) async throws -> String {
        String(decoding: try await request("GET", "buckets/default/collections/\(collection)/records"), as: UTF8.self)
    }

    /// Writes a listed record back (its `last_modified` dropped) whatever the server holds.
    func put(_ collection: String, _ record: [String: Any]) async throws {
        var fields = record
        fields["last_modified"] = nil
        try await put(collection, try XCTUnwrap(fields["id"] as? String), fields)
    }
}
