/// Reads the protocol buffers wire format, the two field shapes Google Authenticator's export uses:
/// varints (wire type 0) and length-delimited bytes (wire type 2). Any other wire type, a varint of
/// more than 10 bytes, a length past the end or a field number 0 is `Malformed`: the bytes are a
/// stranger's, so nothing here trusts a length before checking it against what is left.
struct ProtobufReader {
    /// A field as read: its number and its value.
    enum Field: Equatable {
        case varint(number: Int, value: UInt64)
        case bytes(number: Int, value: ArraySlice<UInt8>)
    }

    /// Where the bytes stop making sense, for the caller's sentence.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "\(reason) at byte \(offset)" }
    }

    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    var isAtEnd: Bool { position >= bytes.endIndex }

    /// The next field, or nil at the end.
    mutating func next() throws(Malformed) -> Field? {
        guard !isAtEnd else { return nil }
        let start = position
        let key = try varint()
        let number = key >> 3
        guard number > 0, number <= 536_870_911 else { throw Malformed(offset: start, reason: "a field number out of range") }
        switch key & 7 {
        case 0:
            return .varint(number: Int(number), value: try varint())
        case 2:
            let lengthAt = position
            let length = try varint()
            guard length <= UInt64(bytes.endIndex - position) else {
                throw Malformed(offset: lengthAt, reason: "a length past the end")
            }
            let end = position + Int(length)
            defer { position = end }
            return .bytes(number: Int(number), value: bytes[position..<end])
        default:
            throw Malformed(offset: start, reason: "wire type \(key & 7), which this format does not use")
        }
    }

    /// A base-128 varint of at most 10 bytes (64 bits).
    private mutating func varint() throws(Malformed) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        for index in 0..<10 {
            guard position < bytes.endIndex else { throw Malformed(offset: start, reason: "a number cut short") }
            let byte = bytes[position]
            position += 1
            // The tenth byte holds the 64th bit only.
            if index == 9 && byte > 1 { throw Malformed(offset: start, reason: "a number over 64 bits") }
            value |= UInt64(byte & 0x7F) << (7 * UInt64(index))
            if byte & 0x80 == 0 { return value }
        }
        throw Malformed(offset: start, reason: "a number over 64 bits")
    }
}
