import Foundation

/// Rewrites of a KDBX 4 file's clear header for hostile-file tests: the header is parsed (and
/// its key derivation checked against Coffer's bounds) before its checksum or HMAC, so a file
/// whose KDF parameters were replaced must be refused for the parameters, before any work.
public enum KDBXTestFiles {
    public struct Malformed: Error {}

    /// The length of a KDBX 4 file's header, signature to end-of-header field included (where
    /// its SHA-256 and HMAC follow).
    public static func headerLength(_ file: Data) throws -> Int {
        try fields(file).end
    }

    /// `file` with its KDF parameters (field 11) replaced by `parameters`.
    public static func replacingKDF(_ file: Data, with parameters: [UInt8]) throws -> Data {
        let bytes = [UInt8](file)
        let (list, end) = try fields(file)
        var out = Array(bytes[0..<12])
        for (id, value) in list {
            let written = id == 11 ? parameters : value
            out.append(id)
            out += le(UInt32(written.count)) + written
        }
        out += [0] + le(UInt32(4)) + [0x0D, 0x0A, 0x0D, 0x0A]
        return Data(out + bytes[end...])
    }

    /// AES-KDF (KDBX 4's UUID) asking for `rounds`.
    public static func aesKDF(rounds: UInt64) -> [UInt8] {
        dictionary([("$UUID", 0x42, [0x7C, 0x02, 0xBB, 0x82, 0x79, 0xA7, 0x4A, 0xC0, 0x92, 0x7D, 0x11, 0x4A, 0x00, 0x64, 0x82, 0x38]),
                    ("R", 0x05, le(rounds)), ("S", 0x42, [UInt8](repeating: 1, count: 32))])
    }

    /// Argon2id asking for `memory` bytes and `iterations` passes, two lanes.
    public static func argon2(memory: UInt64, iterations: UInt64) -> [UInt8] {
        dictionary([("$UUID", 0x42, [0x9E, 0x29, 0x8B, 0x19, 0x56, 0xDB, 0x47, 0x73, 0xB2, 0x3D, 0xFC, 0x3E, 0xC6, 0xF0, 0xA1, 0xE6]),
                    ("I", 0x05, le(iterations)), ("M", 0x05, le(memory)), ("P", 0x04, le(UInt32(2))),
                    ("S", 0x42, [UInt8](repeating: 2, count: 32)), ("V", 0x04, le(UInt32(0x13)))])
    }

    private static func dictionary(_ entries: [(String, UInt8, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [0x00, 0x01]
        for (name, type, value) in entries {
            out.append(type)
            out += le(UInt32(name.utf8.count)) + Array(name.utf8) + le(UInt32(value.count)) + value
        }
        return out + [0]
    }

    private static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func fields(_ file: Data) throws -> (list: [(UInt8, [UInt8])], end: Int) {
        let bytes = [UInt8](file)
        guard bytes.count > 12, bytes[10] == 4 else { throw Malformed() }
        var offset = 12
        var list: [(UInt8, [UInt8])] = []
        while offset + 5 <= bytes.count {
            let id = bytes[offset]
            let size = Int(bytes[offset + 1]) | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]) << 16 | Int(bytes[offset + 4]) << 24
            offset += 5
            guard offset + size <= bytes.count else { throw Malformed() }
            if id == 0 { return (list, offset + size) }
            list.append((id, Array(bytes[offset..<(offset + size)])))
            offset += size
        }
        throw Malformed()
    }
}
