import Foundation

/// Reads the SSH wire encoding (RFC 4251 §5): `uint32`, `string` and `mpint`. Every length is
/// checked against the bytes left before anything is copied, so a hostile length can neither read
/// past the end nor make a large allocation.
public struct SSHWireReader: Sendable {
    private let data: Data
    private var offset: Int

    public init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    public var isAtEnd: Bool { offset == data.endIndex }
    var remaining: Int { data.endIndex - offset }

    public mutating func byte() throws(SSHKeyError) -> UInt8 {
        guard remaining >= 1 else { throw .malformed("it ends early") }
        defer { offset += 1 }
        return data[offset]
    }

    public mutating func uint32() throws(SSHKeyError) -> UInt32 {
        guard remaining >= 4 else { throw .malformed("it ends early") }
        defer { offset += 4 }
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[offset + $1]) }
    }

    public mutating func boolean() throws(SSHKeyError) -> Bool { try byte() != 0 }

    /// A length-prefixed byte string.
    public mutating func string() throws(SSHKeyError) -> Data {
        let length = Int(try uint32())
        guard length <= remaining else { throw .malformed("a length of \(length) runs past the end") }
        defer { offset += length }
        return data.subdata(in: offset..<offset + length)
    }

    /// A string that must be UTF-8 text (names, comments).
    public mutating func text() throws(SSHKeyError) -> String {
        guard let text = String(data: try string(), encoding: .utf8) else { throw .malformed("a name is not UTF-8") }
        return text
    }

    /// A non-negative multiple-precision integer, big-endian without leading zero bytes.
    public mutating func mpint() throws(SSHKeyError) -> Data {
        let bytes = try string()
        if let first = bytes.first, first & 0x80 != 0 { throw .malformed("a number is negative") }
        return Data(bytes.drop { $0 == 0 })
    }

    /// Fails unless every byte was read: trailing bytes mean the blob is not what it says.
    public func expectEnd() throws(SSHKeyError) {
        guard isAtEnd else { throw .malformed("\(remaining) unexpected bytes follow") }
    }
}
