import Foundation

/// Writes the SSH wire encoding (RFC 4251 §5), the mirror of `SSHWireReader`.
public struct SSHWireWriter: Sendable {
    public private(set) var data = Data()

    public init() {}

    public mutating func byte(_ value: UInt8) { data.append(value) }

    public mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    public mutating func string(_ bytes: Data) {
        uint32(UInt32(bytes.count))
        data.append(bytes)
    }

    public mutating func text(_ text: String) { string(Data(text.utf8)) }

    /// `bytes` as an unsigned big-endian number: leading zeros dropped, one zero added when the
    /// top bit is set (else it would read as negative).
    public mutating func mpint(_ bytes: Data) {
        var trimmed = Data(bytes.drop { $0 == 0 })
        if let first = trimmed.first, first & 0x80 != 0 { trimmed.insert(0, at: 0) }
        string(trimmed)
    }
}
