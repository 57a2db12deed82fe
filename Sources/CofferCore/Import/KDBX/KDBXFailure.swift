import Foundation

/// Why a KDBX file is not read: the words that follow its name ("is cut short (in block 3)"), one
/// sentence, mapped to `CoreError.invalidImport` at the edge (`KeePassKDBX.read`).
struct KDBXFailure: Error, Equatable {
    var reason: String
    init(_ reason: String) { self.reason = reason }

    static let cutShort = KDBXFailure("is cut short")
    /// What a wrong password, a wrong key file and a rewritten header all look like from here.
    static let wrongKey = KDBXFailure("could not be opened: the password or key file is wrong (or its header was altered)")
}

/// Little-endian reads from the front of a byte array, each refusing a file that ends too soon.
struct KDBXByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func take(_ count: Int) throws(KDBXFailure) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw .cutShort }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(KDBXFailure) -> T {
        Self.littleEndian(try take(MemoryLayout<T>.size))
    }

    static func littleEndian<T: FixedWidthInteger>(_ bytes: ArraySlice<UInt8>) -> T {
        bytes.reversed().reduce(T.zero) { $0 << 8 | T($1) }
    }
}

extension FixedWidthInteger {
    /// The integer's bytes, little-endian (KDBX's order).
    var littleEndianBytes: [UInt8] {
        withUnsafeBytes(of: littleEndian) { Array($0) }
    }
}
