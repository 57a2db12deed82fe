import Foundation

/// The canonical bytes of a roster entry, format version 1.
///
/// ```
/// entry  = version (1 byte: 1)
///          vault id   (2-byte length, ASCII `share-…`)
///          sequence   (8 bytes, big-endian)
///          previous   (32 bytes)
///          author     (32 bytes: the id's lower-case hex)
///          change tag (1 byte) and its body:
///            1 create, 2 add: signing key (32) | sealing key (32) | name (2-byte length, UTF-8)
///                             | account (2-byte length, ASCII)
///            3 remove:        the removed person's id (32 bytes of hex)
///            4 recovery:      the kit's sealing key (32)
///            5 rotate:        nothing
///          epoch      (8 bytes, big-endian)
///          commitment (32 bytes)
///          signature  (64 bytes)
/// signed = "coffer/v1/roster" NUL | entry without its signature
/// ```
///
/// Every field's length is fixed by the version and the tag or written in front of it, so two
/// different entries never share signed bytes, and the domain prefix keeps a signature on them
/// from passing for a signature on anything else the person's key signs. Decoding is strict:
/// what decodes re-encodes to the same bytes.
extension RosterEntry {
    public static let formatVersion: UInt8 = 1
    /// The largest encoding read; the largest entry Coffer writes (an `add`) is under 700 bytes.
    public static let encodedLimit = 4096
    static let domain = Data("coffer/v1/roster\0".utf8)

    private enum Tag: UInt8 {
        case create = 1, add, remove, recovery, rotate
    }

    /// What was wrong with bytes that do not decode as an entry.
    public enum Malformed: Error, Equatable, Sendable {
        case tooLarge(Int)
        case truncated
        case trailingBytes(Int)
        case unknownVersion(UInt8)
        case unknownChange(UInt8)
        /// A field outside its form: the vault id, the author, a person's name, account or keys.
        case invalidField(String)
    }

    /// The bytes stored in the entry's record: everything signed, then the signature.
    public var encoded: Data {
        var writer = unsignedWriter()
        writer.fixed(signature)
        return writer.bytes
    }

    /// What the signature covers.
    var signedBytes: Data {
        Self.domain + unsignedWriter().bytes
    }

    private func unsignedWriter() -> RosterByteWriter {
        var writer = RosterByteWriter()
        writer.byte(Self.formatVersion)
        writer.sized(vaultID.bucket.utf8)
        writer.integer(sequence)
        writer.fixed(previous)
        writer.fixed(author.utf8)
        switch change {
        case .create(let person):
            writer.byte(Tag.create.rawValue)
            Self.write(person, to: &writer)
        case .add(let person):
            writer.byte(Tag.add.rawValue)
            Self.write(person, to: &writer)
        case .remove(let id):
            writer.byte(Tag.remove.rawValue)
            writer.fixed(id.utf8)
        case .recovery(let key):
            writer.byte(Tag.recovery.rawValue)
            writer.fixed(key)
        case .rotate:
            writer.byte(Tag.rotate.rawValue)
        }
        writer.integer(epoch)
        writer.fixed(epochCommitment)
        return writer
    }

    private static func write(_ person: Person, to writer: inout RosterByteWriter) {
        writer.fixed(person.signingKey)
        writer.fixed(person.sealingKey)
        writer.sized(person.name.utf8)
        writer.sized(person.account.utf8)
    }

    /// The entry `bytes` encode.
    public init(encoded bytes: Data) throws(Malformed) {
        guard bytes.count <= Self.encodedLimit else { throw .tooLarge(bytes.count) }
        var reader = RosterByteReader(bytes)
        let version = try reader.byte()
        guard version == Self.formatVersion else { throw .unknownVersion(version) }
        guard let vaultID = SharedVaultID(bucket: String(decoding: try reader.sized(), as: UTF8.self)) else {
            throw .invalidField("vault id")
        }
        let sequence = try reader.integer()
        let previous = try reader.fixed(Self.hashLength)
        let author = try Self.personID(&reader, field: "author")
        let change = try Self.change(&reader)
        let epoch = try reader.integer()
        let commitment = try reader.fixed(Self.hashLength)
        let signature = try reader.fixed(Self.signatureLength)
        guard reader.remaining == 0 else { throw .trailingBytes(reader.remaining) }
        self.init(vaultID: vaultID, sequence: sequence, previous: Data(previous), author: author, change: change,
                  epoch: epoch, epochCommitment: Data(commitment), signature: Data(signature))
    }

    private static func change(_ reader: inout RosterByteReader) throws(Malformed) -> RosterChange {
        let value = try reader.byte()
        guard let tag = Tag(rawValue: value) else { throw .unknownChange(value) }
        switch tag {
        case .create: return .create(try person(&reader))
        case .add: return .add(try person(&reader))
        case .remove: return .remove(personID: try personID(&reader, field: "removed person's id"))
        case .recovery: return .recovery(sealingKey: Data(try reader.fixed(Person.keyLength)))
        case .rotate: return .rotate
        }
    }

    private static func person(_ reader: inout RosterByteReader) throws(Malformed) -> Person {
        let signingKey = try reader.fixed(Person.keyLength), sealingKey = try reader.fixed(Person.keyLength)
        guard let name = String(validating: try reader.sized(), as: UTF8.self) else { throw .invalidField("person's name") }
        let account = String(decoding: try reader.sized(), as: UTF8.self)
        do throws(Person.Problem) {
            return try Person(name: name, signingKey: Data(signingKey), sealingKey: Data(sealingKey), account: account)
        } catch {
            switch error {
            case .name: throw .invalidField("person's name")
            case .account: throw .invalidField("person's account")
            case .keyLength: throw .invalidField("person's keys")
            }
        }
    }

    private static func personID(_ reader: inout RosterByteReader, field: String) throws(Malformed) -> String {
        let bytes = try reader.fixed(Person.idLength)
        guard Person.isValidID(utf8: bytes) else { throw .invalidField(field) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension RosterEntry.Malformed: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooLarge(let count):
            return "The roster entry is \(count) bytes, more than the \(RosterEntry.encodedLimit) an entry may have."
        case .truncated: return "The roster entry is cut short."
        case .trailingBytes(let count): return "The roster entry has \(count) bytes after its end."
        case .unknownVersion(let version):
            return "The roster entry has format version \(version), which this version of Coffer does not read."
        case .unknownChange(let tag): return "The roster entry makes a change of unknown kind \(tag)."
        case .invalidField(let field): return "The roster entry's \(field) is not valid."
        }
    }
}
