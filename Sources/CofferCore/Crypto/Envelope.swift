import Crypto
import Foundation

/// AES-256-GCM sealing with a format version and associated data that binds where a ciphertext belongs.
///
/// Version 1: `1 | nonce (12) | ciphertext | tag (16)`, associated data `coffer/v1/<collection>/<id>`,
/// so a ciphertext moved to another id or collection fails to open.
/// Version 2 (records that sync): `2 | lineage (24) | nonce | ciphertext | tag`, associated data
/// `coffer/v2/<collection>/<id>/` followed by the lineage bytes, so the lineage (see `Lineage`)
/// is readable without the key and cannot be changed.
public enum Envelope {
    public static let version: UInt8 = 1
    public static let lineageVersion: UInt8 = 2
    package static let overhead = 1 + 12 + 16

    public static func associatedData(collection: String, id: String) -> Data {
        Data("coffer/v\(version)/\(collection)/\(id)".utf8)
    }

    static func associatedData(collection: String, id: String, lineage: Lineage) -> Data {
        Data("coffer/v\(lineageVersion)/\(collection)/\(id)/".utf8) + lineage.encoded
    }

    /// The lineage at the front of a sealed envelope, without opening it: `.unknown` for version 1,
    /// nil when the bytes are no envelope.
    public static func lineage(of sealed: Data) -> Lineage? {
        guard let first = sealed.first else { return nil }
        switch first {
        case version: return .unknown
        case lineageVersion:
            guard sealed.count >= 1 + Lineage.encodedLength else { return nil }
            let start = sealed.startIndex + 1
            return Lineage(encoded: Data(sealed[start..<start + Lineage.encodedLength]))
        default: return nil
        }
    }

    /// Seals a record that syncs, with its lineage in the clear and bound to the ciphertext.
    public static func seal<Plaintext: DataProtocol>(_ plaintext: Plaintext, symmetricKey: SymmetricKey,
                                                      collection: String, id: String, lineage: Lineage) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: symmetricKey,
                                   authenticating: associatedData(collection: collection, id: id, lineage: lineage))
        guard let combined = box.combined else { throw CoreError.storage(reason: "AES-GCM produced no ciphertext") }
        var sealed = Data([lineageVersion])
        sealed.append(lineage.encoded)
        sealed.append(combined)
        return sealed
    }

    public static func seal<Plaintext: DataProtocol>(_ plaintext: Plaintext, key: SecureBuffer,
                                                      collection: String, id: String, lineage: Lineage) throws -> Data {
        try seal(plaintext, symmetricKey: key.withUnsafeBytes { SymmetricKey(data: $0) }, collection: collection, id: id,
                 lineage: lineage)
    }

    public static func seal<Plaintext: DataProtocol>(_ plaintext: Plaintext, key: SecureBuffer,
                                                      collection: String, id: String) throws -> Data {
        try seal(plaintext, symmetricKey: key.withUnsafeBytes { SymmetricKey(data: $0) }, collection: collection, id: id)
    }

    public static func seal<Plaintext: DataProtocol>(_ plaintext: Plaintext, symmetricKey: SymmetricKey,
                                                      collection: String, id: String) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: symmetricKey,
                                   authenticating: associatedData(collection: collection, id: id))
        guard let combined = box.combined else { throw CoreError.storage(reason: "AES-GCM produced no ciphertext") }
        var sealed = Data([version])
        sealed.append(combined)
        return sealed
    }

    /// Opens a sealed envelope; any change to any byte, or a wrong id, throws `CoreError.tampered`.
    /// The caller owns the returned plaintext and should wipe it when done if it holds keys.
    public static func open(_ sealed: Data, key: SecureBuffer, collection: String, id: String) throws -> Data {
        try open(sealed, symmetricKey: key.withUnsafeBytes { SymmetricKey(data: $0) }, collection: collection, id: id)
    }

    public static func open(_ sealed: Data, symmetricKey: SymmetricKey, collection: String, id: String) throws -> Data {
        let body: Data
        let associated: Data
        switch sealed.first {
        case version where sealed.count >= overhead:
            body = sealed.dropFirst()
            associated = associatedData(collection: collection, id: id)
        case lineageVersion where sealed.count >= overhead + Lineage.encodedLength:
            guard let lineage = lineage(of: sealed) else { throw CoreError.tampered(what: "\(collection) record \(id) has a malformed lineage") }
            body = sealed.dropFirst(1 + Lineage.encodedLength)
            associated = associatedData(collection: collection, id: id, lineage: lineage)
        default:
            throw CoreError.tampered(what: "\(collection) record \(id) has an unknown envelope format")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: body)
            return try AES.GCM.open(box, using: symmetricKey, authenticating: associated)
        } catch {
            throw CoreError.tampered(what: "\(collection) record \(id) failed authentication")
        }
    }

}
