import Foundation

/// The plaintext codec for items (JSON). One place, so a faster codec can replace it whole.
public enum ItemCodec {
    public static func encode(_ item: Item) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(item)
    }

    public static func decode(_ data: Data) throws -> Item {
        try JSONDecoder().decode(Item.self, from: data)
    }
}
