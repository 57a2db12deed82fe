import Foundation

/// The plaintext codec for items (JSON). One place, so a faster codec can replace it whole.
///
/// Hand-written (`ItemJSONWriter`, `ItemJSONReader`) rather than `JSONEncoder`/`JSONDecoder`: the
/// Foundation coders were a third of the cost of opening an item. The bytes are the same as
/// `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` wrote, and everything it wrote decodes.
public enum ItemCodec {
    public static func encode(_ item: Item) throws -> Data {
        var writer = ItemJSONWriter(capacity: 512)
        try writer.write(item)
        var bytes = writer.takeBytes()
        defer { wipe(&bytes) }
        return Data(bytes)
    }

    public static func decode(_ data: Data) throws -> Item {
        try data.withUnsafeBytes { raw in
            try ItemJSONReader.item(from: raw.assumingMemoryBound(to: UInt8.self))
        }
    }
}
