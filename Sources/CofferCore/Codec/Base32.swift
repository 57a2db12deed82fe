/// RFC 4648 base32, as TOTP secrets are written: case, spaces, dashes and trailing `=` padding
/// are forgiven, since people type secrets in from a page that groups them in fours.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The decoded bytes; nil when a character lies outside the alphabet or the length is one no
    /// encoder produces (1, 3 or 6 characters past a multiple of 8).
    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "-"): continue
            case UInt8(ascii: "="): padding += 1
            default:
                // Padding belongs only at the end.
                guard padding == 0, let value = value(of: byte) else { return nil }
                values.append(value)
            }
        }
        guard ![1, 3, 6].contains(values.count % 8) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for value in values {
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return bytes
    }

    /// Encodes without padding (the tests write secrets with it).
    public static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                text.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 { text.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: text, as: UTF8.self)
    }

    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): return byte - UInt8(ascii: "2") + 26
        default: return nil
        }
    }
}
