import Foundation

/// KDBX 4's typed key–value list (the KDF's parameters): a version (major 1), then entries of a
/// type byte, a name and a value, ended by a zero type byte. Only the types the KDF parameters
/// use are kept; others are skipped by their length.
struct KDBXVariantDictionary {
    enum Value: Equatable {
        case uint32(UInt32), uint64(UInt64), bool(Bool), int32(Int32), int64(Int64), string(String), bytes([UInt8])
    }

    private(set) var values: [String: Value] = [:]

    /// Entries beyond this are refused: KeePass writes about six.
    static let entryLimit = 64

    init(_ bytes: ArraySlice<UInt8>) throws(KDBXFailure) {
        var reader = KDBXByteReader(Array(bytes))
        let version = try reader.integer(UInt16.self)
        guard version >> 8 == 1 else { throw KDBXFailure("has key-derivation parameters of an unknown version") }
        while true {
            let type = try reader.integer(UInt8.self)
            if type == 0 { return }
            guard values.count < Self.entryLimit else { throw KDBXFailure("has more than \(Self.entryLimit) key-derivation parameters") }
            let nameLength = try reader.integer(Int32.self)
            let name = String(decoding: try reader.take(Int(nameLength)), as: UTF8.self)
            let valueLength = try reader.integer(Int32.self)
            let value = try reader.take(Int(valueLength))
            func fixed(_ size: Int) throws(KDBXFailure) {
                guard value.count == size else { throw KDBXFailure("has a key-derivation parameter (\(name.prefix(20))) of the wrong size") }
            }
            switch type {
            case 0x04: try fixed(4); values[name] = .uint32(KDBXByteReader.littleEndian(value))
            case 0x05: try fixed(8); values[name] = .uint64(KDBXByteReader.littleEndian(value))
            case 0x08: try fixed(1); values[name] = .bool(value.first != 0)
            case 0x0C: try fixed(4); values[name] = .int32(KDBXByteReader.littleEndian(value))
            case 0x0D: try fixed(8); values[name] = .int64(KDBXByteReader.littleEndian(value))
            case 0x18: values[name] = .string(String(decoding: value, as: UTF8.self))
            case 0x42: values[name] = .bytes(Array(value))
            default: break
            }
        }
    }

    init() {}

    func bytes(_ name: String) -> [UInt8]? {
        if case .bytes(let value) = values[name] { return value }
        return nil
    }

    /// An unsigned number, whichever width the writer chose.
    func number(_ name: String) -> UInt64? {
        switch values[name] {
        case .uint32(let value): return UInt64(value)
        case .uint64(let value): return value
        case .int32(let value) where value >= 0: return UInt64(value)
        case .int64(let value) where value >= 0: return UInt64(value)
        default: return nil
        }
    }

    /// The dictionary's bytes, written in name order (what `KDBXWriter` would need).
    static func encode(_ entries: [(String, Value)]) -> [UInt8] {
        var out: [UInt8] = UInt16(0x0100).littleEndianBytes
        for (name, value) in entries {
            let (type, bytes): (UInt8, [UInt8])
            switch value {
            case .uint32(let number): (type, bytes) = (0x04, number.littleEndianBytes)
            case .uint64(let number): (type, bytes) = (0x05, number.littleEndianBytes)
            case .bool(let flag): (type, bytes) = (0x08, [flag ? 1 : 0])
            case .int32(let number): (type, bytes) = (0x0C, number.littleEndianBytes)
            case .int64(let number): (type, bytes) = (0x0D, number.littleEndianBytes)
            case .string(let text): (type, bytes) = (0x18, Array(text.utf8))
            case .bytes(let data): (type, bytes) = (0x42, data)
            }
            out.append(type)
            out += Int32(name.utf8.count).littleEndianBytes + Array(name.utf8)
            out += Int32(bytes.count).littleEndianBytes + bytes
        }
        out.append(0)
        return out
    }
}
