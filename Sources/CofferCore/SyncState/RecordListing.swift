import Foundation

/// A page of Kinto's record listing (`{"data": [record, …], …}`), read in one validating pass.
///
/// Each record comes back as the range of its own bytes in the page, with the two members the
/// listing needs (its id and timestamp); the record itself is decoded once, later, by the step that
/// stores it. Writing 10,000 parsed records out again as JSON cost more than everything else a
/// first download does, and parsing the page as a tree first cost nearly as much.
package enum RecordListing {
    package struct Entry: Sendable, Equatable {
        package var id: String
        package var lastModified: Int64
        /// Where the record's JSON object lies in the page.
        package var range: Range<Int>
    }

    /// The records of one page, in the page's order.
    ///
    /// - Throws: `ItemJSONError` when the page is not strict JSON, has no top-level `data` array
    ///   (or two), or holds a record without a string `id` and a whole-number `last_modified`.
    package static func entries(of page: Data) throws -> [Entry] {
        try page.withUnsafeBytes { raw in
            try entries(of: raw.bindMemory(to: UInt8.self))
        }
    }

    private static func entries(of bytes: UnsafeBufferPointer<UInt8>) throws -> [Entry] {
        var scanner = JSONScanner(bytes)
        var entries: [Entry]?
        var members = try MemberLoop<ListingMember>(&scanner, "a record listing")
        while let _ = try members.next(&scanner) {
            entries = try records(&scanner)
        }
        try scanner.expectEnd()
        guard let entries else { throw ItemJSONError.missingMember("data") }
        return entries
    }

    private static func records(_ scanner: inout JSONScanner) throws -> [Entry] {
        var entries: [Entry] = []
        try scanner.enterArray("data")
        while try scanner.hasNextElement(after: entries.count) {
            _ = try scanner.peek()
            let start = scanner.position
            var id: String?, lastModified: Int64?
            var members = try MemberLoop<RecordMember>(&scanner, "a record")
            while let member = try members.next(&scanner) {
                switch member {
                case .id: id = try scanner.readString("id")
                case .lastModified: lastModified = try scanner.readWholeNumber("last_modified")
                default: try scanner.skipValue()
                }
            }
            guard let id else { throw ItemJSONError.missingMember("id") }
            guard let lastModified else { throw ItemJSONError.missingMember("last_modified") }
            entries.append(Entry(id: id, lastModified: lastModified, range: start..<scanner.position))
        }
        return entries
    }
}

/// The one member of a listing page this reader takes.
enum ListingMember: Int, ItemJSONMember {
    case data

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 4, spells(bytes, "data") else { return nil }
        self = .data
    }

    var name: String { "data" }
}
