import Foundation

/// Writes the roster's binary encoding: integers big-endian, fixed-size fields as they are,
/// variable-size ones after their length (two bytes, big-endian).
struct RosterByteWriter {
    private(set) var bytes = Data()

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func integer(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func fixed<Bytes: Sequence<UInt8>>(_ field: Bytes) {
        bytes.append(contentsOf: field)
    }

    /// A field no longer than 65,535 bytes (every variable field of an entry is at most 200).
    mutating func sized<Bytes: Collection<UInt8>>(_ field: Bytes) {
        precondition(field.count <= Int(UInt16.max))
        withUnsafeBytes(of: UInt16(field.count).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: field)
    }
}

/// Reads what `RosterByteWriter` wrote, refusing to read past the end.
struct RosterByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) {
        bytes = Array(data)
    }

    /// The bytes not read yet.
    var remaining: Int { bytes.count - offset }

    mutating func byte() throws(RosterEntry.Malformed) -> UInt8 {
        try fixed(1)[0]
    }

    mutating func integer() throws(RosterEntry.Malformed) -> UInt64 {
        try fixed(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func fixed(_ count: Int) throws(RosterEntry.Malformed) -> [UInt8] {
        guard count <= remaining else { throw .truncated }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func sized() throws(RosterEntry.Malformed) -> [UInt8] {
        let length = try fixed(2).reduce(0) { $0 << 8 | Int($1) }
        return try fixed(length)
    }
}
