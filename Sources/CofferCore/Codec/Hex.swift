/// Lower-case hex of bytes: digests in records and file names, ids, account names. One writer, so
/// every place that compares such text writes it the same way.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func lowercase<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var characters: [UInt8] = []
        characters.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
